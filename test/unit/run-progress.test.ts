import { advance, compact, fit, startProgress, statusLine } from '../../src/cli/terminal/run-progress';
import type { BudgetSnapshot } from '../../src/common/wire';

const budget = (over: Partial<BudgetSnapshot> = {}): BudgetSnapshot => ({
  iterations: 197,
  tokens: null,
  costUsd: null,
  wallClockMs: null,
  used: { iterations: 3, inputTokens: 1000, outputTokens: 234, costUsd: 0.0042 },
  ...over,
});

test('the phase follows the stream: thinking, writing, running a tool, waiting for the human', () => {
  let p = startProgress(0);
  p = advance(p, { type: 'model_call', step: 3 });
  expect(p).toMatchObject({ phase: 'thinking', step: 3 });
  p = advance(p, { type: 'text', step: 3, attempt: 1, delta: 'hi' });
  expect(p.phase).toBe('writing');
  p = advance(p, { type: 'tool_call', step: 3, id: 'c', name: 'bash', input: {} });
  expect(p.phase).toBe('running bash');
  p = advance(p, { type: 'permission_request', step: 3, requestId: 'q-1', toolCallId: 'c', tool: 'bash', input: {}, deadline: '' });
  expect(p.phase).toBe('waiting for your answer');
  p = advance(p, { type: 'step', record: { step_id: 3, reason: 'waiting_for_jobs', budget_after: budget() } });
  expect(p).toMatchObject({ phase: 'waiting for background jobs', budget: budget() });
});

test('the status line says phase, step, time, tokens, cost and each budget left', () => {
  const p = { ...startProgress(0), phase: 'thinking', step: 3, budget: budget({ tokens: 48_766, costUsd: 0.9958 }) };
  expect(statusLine(p, 12_000, 200, '⠋')).toBe('⠋ thinking · step 3 · 12s · 1.2k tokens · $0.0042 · 197 iterations left · 49k tokens left · $1.00 left');
});

test('the status line never exceeds the width it is given', () => {
  const p = { ...startProgress(0), phase: 'running a_tool_with_a_long_name', step: 12, budget: budget() };
  for (const width of [10, 25, 40]) {
    const line = statusLine(p, 5_000, width, '⠋');
    expect([...line].length).toBeLessThanOrEqual(width);
    expect(line.endsWith('…')).toBe(true);
  }
  expect(fit('abc', 0)).toBe('');
});

test('token counts read at a glance', () => {
  expect([compact(999), compact(1234), compact(48_766), compact(2_500_000)]).toEqual(['999', '1.2k', '49k', '2.5M']);
});
