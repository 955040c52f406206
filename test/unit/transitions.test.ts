import type { ToolCall } from '../../src/common/messages';
import { describeTransition, type Transition } from '../../src/loop/transitions';

const call: ToolCall = { id: 'c1', name: 'bash', input: { command: 'rm -rf build' } };

describe('describeTransition: the reason and detail a step record stores, as runs always recorded them', () => {
  test.each<[Transition, string, string | undefined]>([
    [{ kind: 'next_turn' }, 'next_turn', undefined],
    [{ kind: 'next_turn', warned: 'repeated_action' }, 'next_turn:repeated_action_warned', undefined],
    [{ kind: 'next_turn', warned: 'repeated_failure' }, 'next_turn:repeated_failure_warned', undefined],
    [{ kind: 'next_turn', followUpQueued: true }, 'next_turn', 'answered; a follow-up is queued'],
    [{ kind: 'compacted', mode: 'micro', tokensBefore: 60000, tokensAfter: 20000 }, 'compacted:micro', 'context too long: ~60000 → ~20000 tokens'],
    [{ kind: 'compacted', mode: 'full', tokensBefore: 9, tokensAfter: 3 }, 'compacted:full', 'context too long: ~9 → ~3 tokens'],
    [{ kind: 'compaction_failed', error: 'Boom' }, 'compaction_failed', 'summary failed (Boom); history restored from the backup'],
    [{ kind: 'output_truncated', recoveries: 2 }, 'output_truncated', 'recovery 2 of 3'],
    [{ kind: 'output_truncated', recoveries: 1, perTurn: true }, 'output_truncated', 'recovery 1 of 3 in this turn'],
    [{ kind: 'empty_reply' }, 'empty_reply', 'the model replied with nothing: nudged once'],
    [{ kind: 'waiting_for_jobs', jobs: ['job-1', 'job-2'] }, 'waiting_for_jobs', 'final answer proposed while job-1, job-2 still run'],
    [{ kind: 'follow_up_taken', count: 2 }, 'follow_up_taken', '2 follow-up(s)'],
    [{ kind: 'acceptance_failed', attempts: 1, output: 'x'.repeat(400) }, 'acceptance_failed', 'x'.repeat(300)],
    [{ kind: 'idle', timeout: '10m' }, 'idle', 'answered; open for follow-ups for 10m'],
    [{ kind: 'continue_as_new', historyLength: 4242 }, 'continue_as_new', 'history of 4242 events handed to a new run'],
    [{ kind: 'turn_cancelled', reason: 'pressed Esc', cancelledCalls: ['bash', 'grep'], timeout: '2h' }, 'turn_cancelled', 'pressed Esc; cancelled: bash, grep; open for follow-ups for 2h'],
    [{ kind: 'turn_cancelled', reason: 'cancelled by the user', cancelledCalls: [] }, 'turn_cancelled', 'cancelled by the user'],
    [{ kind: 'approval_unavailable', call, why: 'asks: rm' }, 'approval_unavailable', 'asks: rm; nobody to ask in the background: denied'],
    [{ kind: 'stop', reason: 'final_answer' }, 'stop:final_answer', undefined],
    [{ kind: 'stop', reason: 'cancelled', detail: 'cancelled by the user' }, 'stop:cancelled', 'cancelled by the user'],
    [{ kind: 'stop', reason: 'NO_PROGRESS', message: 'No progress: grep', detail: 'NO_PROGRESS: grep ×5' }, 'stop:NO_PROGRESS', 'NO_PROGRESS: grep ×5'],
  ])('%j → %s', (transition, reason, detail) => {
    const step = describeTransition(transition);
    expect(step.reason).toBe(reason);
    expect(step.detail).toBe(detail);
  });

  test('a tool round carries its calls, its evidence and its sandbox; acceptance counts as evidence; approvals name their call', () => {
    expect(describeTransition({ kind: 'next_turn', warned: 'repeated_action', calls: [call], evidence: 2, sandbox: 'network none' })).toEqual({
      reason: 'next_turn:repeated_action_warned',
      evidence: 2,
      calls: [call],
      sandbox: 'network none',
    });
    expect(describeTransition({ kind: 'acceptance_failed', attempts: 1, output: 'fail' })).toEqual({ reason: 'acceptance_failed', detail: 'fail', evidence: 1, calls: [] });
    const timedOut = describeTransition({ kind: 'approval_timed_out', call, input: call.input, why: 'asks: rm' });
    expect(timedOut.reason).toBe('approval_timed_out');
    expect(timedOut.detail).toMatch(/ \(asks: rm\)$/);
    expect(timedOut.calls).toEqual([call]);
    expect(describeTransition({ kind: 'idle', timeout: '1m' })).toEqual({ reason: 'idle', detail: 'answered; open for follow-ups for 1m', evidence: 0, calls: [] });
  });
});
