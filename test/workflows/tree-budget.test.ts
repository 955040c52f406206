import { WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { statusQuery } from '../../src/common/contract';
import type { RecordedRequest } from '../../src/testing/scripted-model-server';
import { byPrompt } from '../support/by-prompt';
import { Harness } from '../support/harness';
import { isPromptSent } from '../support/prompt-sent';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

/** More than the runtime's estimate of a member's first prompt (about 1,530): the first calls overrun their reservations. */
const PROMPT_TOKENS = 2_000;
const USAGE = { prompt_tokens: PROMPT_TOKENS, completion_tokens: 500 };
/** Priced so that each call of the scripted usage costs $0.004: 2,000 × $1/M + 500 × $4/M. */
const PRICE = { inputPerMTok: 1, outputPerMTok: 4 };
/** A part that never finishes: a new glob every turn, each model call 2,000 prompt tokens and up to 500 out, answered after 200 ms so that calls overlap. */
const endless = (part: string) => (index: number) => ({ toolCalls: [{ name: 'glob', arguments: { pattern: `${part}-${index}-*` } }], usage: USAGE, delayMs: 200 });

/** What the provider billed: the scripted usage, its output cut to the request's max_tokens. */
const billedTokens = (request: RecordedRequest): number => PROMPT_TOKENS + Math.min(500, request.body.max_tokens ?? 500);
const billedCost = (request: RecordedRequest): number => (PROMPT_TOKENS * PRICE.inputPerMTok + Math.min(500, request.body.max_tokens ?? 500) * PRICE.outputPerMTok) / 1_000_000;

async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await promise.catch((err: unknown) => err);
  expect(error).toBeInstanceOf(WorkflowFailedError);
  return (error as WorkflowFailedError).cause as ApplicationFailure;
}

/** The parent hands three endless parts to subagents at once (two in the background): four members racing for one budget. */
function fanOut(model: string, share?: { max_tokens: number }): void {
  const budget = share ? { budget: share } : {};
  h.model.setScenario(
    model,
    byPrompt({
      'Split the work': [
        {
          toolCalls: [
            { id: 't1', name: 'subagent', arguments: { task: 'Part A', agent_type: 'general-purpose', run_in_background: true, ...budget } },
            { id: 't2', name: 'subagent', arguments: { task: 'Part B', agent_type: 'general-purpose', run_in_background: true, ...budget } },
            { id: 't3', name: 'subagent', arguments: { task: 'Part C', agent_type: 'general-purpose', ...budget } },
          ],
          usage: USAGE,
        },
        { text: 'All parts done.', usage: USAGE },
      ],
      'Part A': endless('a'),
      'Part B': endless('b'),
      'Part C': endless('c'),
    }),
  );
}

const input = (model: string, extra: Record<string, unknown>) => ({
  prompt: 'Split the work',
  model,
  stream: false,
  permissionMode: 'auto',
  workspace: h.workspace(),
  // Small calls, so that several members' calls hold reservations at once.
  modelSettings: { maxOutputTokens: 800 },
  prices: { [model]: PRICE },
  ...extra,
});

/** The run and its members stopped on the tree's budget, each naming the tree. */
async function expectTreeStopped(workflowId: string): Promise<void> {
  const foreground = await failureOf(h.client.workflow.getHandle(`${workflowId}.sub-3`).result());
  expect(foreground.type).toBe('BudgetExceeded');
  expect(foreground.message).toMatch(/agent tree/i);
  for (const id of ['sub-1', 'sub-2']) {
    const background = await h.client.workflow.getHandle(`${workflowId}.${id}`).result().catch((err: unknown) => err);
    expect(background).toBeInstanceOf(WorkflowFailedError); // stopped by the tree's budget, or cancelled as the parent ended
  }
}

test('a tree with maxTokens 10000 and three racing subagents spends at most 10,000 plus the prompt estimates\' error, never a call per member', async () => {
  fanOut('tree');
  const handle = await h.start(input('tree', { budgets: { maxTokens: 10_000 } }));
  const failure = await failureOf(handle.result());
  expect(failure.type).toBe('BudgetExceeded');
  expect(failure.message).toContain(`Agent tree budget spent (root ${handle.workflowId})`);
  await expectTreeStopped(handle.workflowId);

  const requests = h.model.requestsFor('tree');
  // Every call ran with a grant: its max_tokens the room it was given, never more than the configured 800.
  for (const request of requests) expect(request.body.max_tokens).toBeGreaterThan(0);
  for (const request of requests) expect(request.body.max_tokens).toBeLessThanOrEqual(800);
  const spent = requests.reduce((n, r) => n + billedTokens(r), 0);
  const ledger = (await handle.query(statusQuery)).treeBudget;
  expect(ledger).toMatchObject({ usedTokens: spent, reservedTokens: 0, callsUnderWay: 0 });
  // The ceiling: output is capped by each grant, so only prompts' estimates can be short. They were
  // (each member's first prompt), yet together by less than one call's prompt, never a call per member.
  const overrun = ledger?.overrunTokens ?? Infinity;
  expect(overrun).toBeGreaterThan(0);
  expect(overrun).toBeLessThan(PROMPT_TOKENS);
  expect(spent).toBeLessThanOrEqual(10_000 + overrun);
  console.log(`tree of 4 under maxTokens 10000: ${requests.length} model calls, ${spent} tokens, at most ${h.model.maxConcurrent('tree')} at once, estimates short by ${overrun} in all`);
});

test('the same for cost: maxCostUsd 0.02 holds for the tree, priced from each reservation', async () => {
  fanOut('tree-cost');
  const handle = await h.start(input('tree-cost', { budgets: { maxCostUsd: 0.02 } }));
  const failure = await failureOf(handle.result());
  expect(failure.type).toBe('BudgetExceeded');
  expect(failure.message).toContain(`Agent tree budget spent (root ${handle.workflowId}): cost budget`);
  await expectTreeStopped(handle.workflowId);

  const requests = h.model.requestsFor('tree-cost');
  const spent = requests.reduce((n, r) => n + billedCost(r), 0);
  const ledger = (await handle.query(statusQuery)).treeBudget;
  expect(ledger?.usedCostUsd).toBeCloseTo(spent, 10);
  // At most the prompt estimates' error, priced at the input price: less than one prompt's cost.
  const overrun = ledger?.overrunCostUsd ?? Infinity;
  expect(overrun).toBeLessThan((PROMPT_TOKENS * PRICE.inputPerMTok) / 1_000_000);
  expect(spent).toBeLessThanOrEqual(0.02 + overrun + 1e-12);
  console.log(`tree of 4 under maxCostUsd 0.02: ${requests.length} model calls, $${spent.toFixed(4)}`);
});

test('without a tree budget the same fan-out overshoots: each subagent spends a 10,000 share of its own', async () => {
  fanOut('no-tree', { max_tokens: 10_000 });
  const handle = await h.start(input('no-tree', {}));
  expect(await handle.result()).toMatchObject({ text: 'All parts done.' });
  const spent = h.model.requestsFor('no-tree').reduce((n, r) => n + billedTokens(r), 0);
  // Three members with 10,000 each, and the parent's calls besides: a 10,000 ceiling is no ceiling here.
  expect(spent).toBeGreaterThan(10_000 + 2 * 2_000);
  console.log(`the same fan-out with no tree budget, shares of 10000: ${spent} tokens`);
});

test("a subagent's budget share in the call caps it below what is left", async () => {
  h.model.setScenario(
    'share',
    byPrompt({
      'Give a share': [
        { toolCalls: [{ id: 's1', name: 'subagent', arguments: { task: 'Part S', agent_type: 'general-purpose', budget: { max_tokens: 5_000 } } }], usage: USAGE },
        { text: 'Stopped it.', usage: USAGE },
      ],
      'Part S': endless('s'),
    }),
  );
  const handle = await h.start({ prompt: 'Give a share', model: 'share', stream: false, permissionMode: 'auto', workspace: h.workspace(), budgets: { maxTokens: 100_000 } });
  expect(await handle.result()).toMatchObject({ text: 'Stopped it.' });
  const child = await failureOf(h.client.workflow.getHandle(`${handle.workflowId}.sub-1`).result());
  expect(child.type).toBe('BudgetExceeded');
  expect(child.message).toContain("this subagent's share of the agent tree's budget");
  expect(child.message).toMatch(/^tokens budget spent: used \d+ of 5000: too little left for the next call, whose prompt alone is about \d+ tokens \(/);
  // 5,000 tokens: the child's second call is given only what its share has left (under the 500 it
  // would write), and a third does not fit.
  const childCalls = h.model.requestsFor('share').filter((r) => isPromptSent(r.body.messages.find((m: { role: string }) => m.role === 'user')?.content, 'Part S'));
  expect(childCalls).toHaveLength(2);
  expect(childCalls[1]?.body.max_tokens).toBeLessThan(500);
  expect(childCalls.reduce((n, r) => n + billedTokens(r), 0)).toBeLessThanOrEqual(5_000);
});
