import { forkInput } from '../../src/runs/fork-input';
import { UsageError } from '../../src/runs/usage-error';

const origin = {
  workflowId: 'fix-1',
  status: 'FAILED',
  input: { workspace: '/ws', model: 'm', permissionMode: 'auto' as const, budgets: { maxTokens: 1000, maxCostUsd: 1 }, maxIterations: 10 },
};

test("a fork keeps the origin's input, with its prompt, its link and the overrides (budgets key by key)", () => {
  expect(forkInput(origin, 'go on', 2, { maxTokens: '50000', maxIterations: '40' })).toEqual({
    workspace: '/ws',
    model: 'm',
    permissionMode: 'auto',
    prompt: 'go on',
    forkFrom: { workflowId: 'fix-1', step: 2 },
    maxIterations: 40,
    budgets: { maxTokens: 50000, maxCostUsd: 1 },
  });
  expect(forkInput(origin, 'go on', undefined, { model: 'other' })).toMatchObject({ model: 'other', forkFrom: { workflowId: 'fix-1' }, budgets: origin.input.budgets });
});

test('a bad override is a usage error naming the flag', () => {
  expect(() => forkInput(origin, 'go on', undefined, { maxCost: '-1' })).toThrow(UsageError);
  expect(() => forkInput(origin, 'go on', undefined, { maxCost: '-1' })).toThrow(/^--max-cost must be a positive number of USD/);
});
