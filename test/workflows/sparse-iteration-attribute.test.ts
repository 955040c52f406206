import type { temporal } from '@temporalio/proto';
import { permissionDecisionSignal } from '../../src/common/contract';
import { Harness } from '../support/harness';
import { pendingRequest, requestIdFor, waitFor } from '../support/wait-for';

/**
 * `BareAgentIterations` is upserted at the first iteration, every tenth, and with each status
 * change (so a waiting or ended run shows its count), not every iteration: each upsert is a
 * history event and a visibility write on the server.
 */
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

/** The run's own attribute upserts (not the SDK's patch markers), in history order. */
function upserts(events: HistoryEvent[]): Array<Record<string, unknown>> {
  return events
    .map((e) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes)
    .filter((attributes): attributes is temporal.api.common.v1.ISearchAttributes => !!attributes)
    // Search attribute payloads are plain JSON.
    .map((attributes) => Object.fromEntries(Object.entries(attributes.indexedFields ?? {}).map(([k, p]) => [k, JSON.parse(Buffer.from(p.data ?? []).toString())])))
    .filter((values) => !('TemporalChangeVersion' in values));
}

test('a 12-iteration run upserts its iterations at 1, 10 and with the completed status at 12', async () => {
  h.model.setScenario('twelve', [
    ...Array.from({ length: 11 }, (_, i) => ({ toolCalls: [{ id: `g${i}`, name: 'glob', arguments: { pattern: `*${i}.md` } }] })),
    { text: 'Done.' },
  ]);
  const handle = await h.start({ prompt: 'Twelve iterations', model: 'twelve', workspace: h.workspace({ 'a.md': 'a\n' }), permissionMode: 'auto', checkpoints: false });
  expect(await handle.result()).toMatchObject({ text: 'Done.', iterations: 12 });

  const iterations = upserts((await handle.fetchHistory()).events ?? []).filter((u) => 'BareAgentIterations' in u);
  expect(iterations).toEqual([{ BareAgentIterations: 1 }, { BareAgentIterations: 10 }, { BareAgentIterations: 12, BareAgentStatus: 'completed' }]);
  expect((await handle.describe()).searchAttributes.BareAgentIterations).toEqual([12]);
});

test('a run that stops to ask shows the iteration it asks at', async () => {
  h.model.setScenario('ask-at-3', [
    { toolCalls: [{ id: 'g1', name: 'glob', arguments: { pattern: '*.md' } }] },
    { toolCalls: [{ id: 'g2', name: 'glob', arguments: { pattern: '*.txt' } }] },
    { toolCalls: [{ id: 'req_1', name: 'bash', arguments: { command: 'touch b.txt' } }] },
    { text: 'Finished.' },
  ]);
  const handle = await h.start({ prompt: 'ask at three', model: 'ask-at-3', workspace: h.workspace(), checkpoints: false });
  await pendingRequest(handle);
  await waitFor(async () => {
    const { searchAttributes } = await handle.describe();
    return searchAttributes.BareAgentWaitingForHuman?.[0] === true && searchAttributes.BareAgentIterations?.[0] === 3 ? true : undefined;
  }, 'iteration 3 with the waiting attribute');
  await handle.signal(permissionDecisionSignal, { requestId: await requestIdFor(handle, 'req_1'), decision: 'allow' });
  expect(await handle.result()).toMatchObject({ text: 'Finished.', iterations: 4 });
  expect((await handle.describe()).searchAttributes.BareAgentIterations).toEqual([4]);
});
