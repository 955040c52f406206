import { readFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { NOT_RUN_IN_ORIGIN } from '../../src/loop/fork-point';
import { Harness } from '../support/harness';
import { waitFor } from '../support/wait-for';
import { messagesQuery, statusQuery, stepsQuery } from '../../src/common/contract';
import { withoutRunContext } from '../support/prompt-sent';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

const append = (i: number) => ({ id: `call_${i}`, name: 'bash', arguments: { command: `echo step-${i} >> log.txt` } });

async function failure(handle: WorkflowHandle): Promise<ApplicationFailure> {
  const error = await handle.result().catch((err: unknown) => err);
  expect(error).toBeInstanceOf(WorkflowFailedError);
  return (error as WorkflowFailedError).cause as ApplicationFailure;
}

/** Chat Completions messages the model got, reduced to role and the text or call ids. */
const shape = (messages: Array<{ role: string; content?: unknown; tool_calls?: Array<{ id: string }>; tool_call_id?: string }>) =>
  messages.filter((m) => m.role !== 'system').map((m) => (m.role === 'tool' ? `tool:${m.tool_call_id}` : m.tool_calls ? `assistant:${m.tool_calls.map((c) => c.id).join(',')}` : `${m.role}:${withoutRunContext(String(m.content))}`));

describe('a fork at step 2 of a 5-step run', () => {
  let origin: WorkflowHandle;
  let workspace: string;
  beforeAll(async () => {
    workspace = h.workspace();
    h.model.setScenario('five', [1, 2, 3, 4].map((i) => ({ text: `turn ${i}`, toolCalls: [append(i)] })).concat([{ text: 'five done', toolCalls: [] }]));
    origin = await h.start({ prompt: 'five steps', model: 'five', workspace, permissionMode: 'bypass', stream: false });
    await origin.result();
  });

  test('gets exactly the conversation of step 2, runs none of its tools again, and links to its origin', async () => {
    const steps = await origin.query(stepsQuery);
    expect(steps.map((s) => [s.step_id, s.reason, s.message_count])).toEqual([
      [1, 'next_turn', 3],
      [2, 'next_turn', 5],
      [3, 'next_turn', 7],
      [4, 'next_turn', 9],
      [5, 'stop:final_answer', 10],
    ]);
    h.model.setScenario('five-fork', [{ text: 'fork done' }]);
    const fork = await h.start({ prompt: 'take another way', model: 'five-fork', workspace, permissionMode: 'bypass', stream: false, forkFrom: { workflowId: origin.workflowId, step: 2 } });
    expect(await fork.result()).toMatchObject({ text: 'fork done' });
    const [request] = h.model.requestsFor('five-fork');
    expect(shape(request!.body.messages)).toEqual(['user:five steps', 'assistant:call_1', 'tool:call_1', 'assistant:call_2', 'tool:call_2', 'user:take another way']);
    const messages = await fork.query(messagesQuery);
    expect(JSON.stringify(messages)).not.toContain('call_3');
    expect(readFileSync(path.join(workspace, 'log.txt'), 'utf8')).toBe('step-1\nstep-2\nstep-3\nstep-4\n');
    const status = await fork.query(statusQuery);
    expect(status.forkedFrom).toEqual({ workflowId: origin.workflowId, runId: (await origin.describe()).runId, step: 2 });
    const description = await fork.describe();
    expect(description.memo).toEqual({ forkedFrom: status.forkedFrom });
    expect(description.searchAttributes.BareAgentForkedFrom).toEqual([origin.workflowId]);
  });

  test('a step past the end fails with InvalidInput naming forkFrom.step and the last step', async () => {
    const fork = await h.start({ prompt: 'go on', model: 'five-fork', workspace, forkFrom: { workflowId: origin.workflowId, step: 6 } });
    const failed = await failure(fork);
    expect(failed).toMatchObject({ type: 'InvalidInput', nonRetryable: true });
    expect(failed.message).toBe(`forkFrom.step: step 6 is past the origin's last step (5) (origin ${origin.workflowId})`);
  });
});

test('invalid forkFrom input is a non-retryable InvalidInput naming the field', async () => {
  const failed = await failure(await h.start({ prompt: 'go on', forkFrom: { workflowId: 'x', step: 0 } }));
  expect(failed).toMatchObject({ type: 'InvalidInput', nonRetryable: true });
  expect(failed.message).toBe('Invalid agentRun input: forkFrom.step: must be a step number, 1 or more');
});

test('an unknown origin fails with a message naming it', async () => {
  const failed = await failure(await h.start({ prompt: 'go on', forkFrom: { workflowId: 'no-such-run' } }));
  expect(failed).toMatchObject({ type: 'InvalidInput', nonRetryable: true });
  expect(failed.message).toBe('forkFrom.workflowId: no run with workflow id "no-such-run"');
});

test('an origin that never had a conversation (it failed on its input) is refused', async () => {
  const bad = await h.start({ prompt: '' });
  await failure(bad);
  const failed = await failure(await h.start({ prompt: 'go on', forkFrom: { workflowId: bad.workflowId } }));
  expect(failed.message).toBe(`forkFrom.workflowId: run "${bad.workflowId}" has no conversation (it ended before its first turn)`);
});

test('a run cancelled while a tool call waited for approval: the fork closes that call as never run', async () => {
  h.model.setScenario('cancelled', [{ text: 'cleaning', toolCalls: [{ id: 'call_rm', name: 'bash', arguments: { command: 'rm -rf build' } }] }]);
  const workspace = h.workspace({ 'build/x': 'x' });
  const origin = await h.start({ prompt: 'clean up', model: 'cancelled', workspace, stream: false });
  await waitFor(async () => ((await origin.query(statusQuery)).pendingPermissions.length === 1 ? true : undefined), 'the permission question');
  await origin.cancel();
  await origin.result().catch(() => undefined);
  h.model.setScenario('cancelled-fork', [{ text: 'resumed' }]);
  const fork = await h.start({ prompt: 'Continue from where you stopped.', model: 'cancelled-fork', workspace, stream: false, forkFrom: { workflowId: origin.workflowId } });
  await fork.result();
  const [request] = h.model.requestsFor('cancelled-fork');
  const messages = request!.body.messages as Array<{ role: string; content: string; tool_call_id?: string }>;
  expect(shape(messages as never)).toEqual(['user:clean up', 'assistant:call_rm', 'tool:call_rm', 'user:Continue from where you stopped.']);
  expect(messages.find((m) => m.role === 'tool')?.content).toBe(NOT_RUN_IN_ORIGIN);
  expect((await fork.query(statusQuery)).forkedFrom?.step).toBe(1); // its only step: stop:cancelled
});
