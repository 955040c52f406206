import { execFileSync } from 'node:child_process';
import { checkpointsQuery } from '../../src/common/contract';
import { readRunCheckpoints } from '../../src/cli/run-checkpoints';
import { Harness } from '../support/harness';
import { localActivityTypes, scheduledActivityTypes } from '../support/history-activities';

/**
 * Step 0 (the workspace as the run found it) is taken before the first round that may write, not
 * at the run's start: a run that only reads takes no checkpoint at all, and one that writes later
 * still has the files as they were before its first write at step 0.
 */
let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

test('a run that only reads takes no checkpoint, and says there is nothing to diff or rewind', async () => {
  h.model.setScenario('lazy-reads', [{ toolCalls: [{ id: 'r', name: 'read_file', arguments: { file_path: 'a.txt' } }] }, { text: 'Read it.' }]);
  const workspace = h.workspace({ 'a.txt': 'one\n' });
  const handle = await h.start({ prompt: 'read', model: 'lazy-reads', workspace, permissionMode: 'auto', stream: false });
  expect(await handle.result()).toMatchObject({ text: 'Read it.' });
  const events = (await handle.fetchHistory()).events ?? [];
  expect([...localActivityTypes(events), ...scheduledActivityTypes(events)]).not.toContain('checkpointWorkspace');
  const view = await handle.query(checkpointsQuery);
  expect(view).toMatchObject({ pending: true, steps: [] });
  expect(view.store).toBeUndefined();
  await expect(readRunCheckpoints(h.client, handle.workflowId)).rejects.toThrow(/has not changed the workspace: no round of it could write yet/);
});

test('a run that reads, then writes, takes step 0 just before its first writing round, with the files as they were', async () => {
  h.model.setScenario('lazy-then-write', [
    { toolCalls: [{ id: 'r', name: 'read_file', arguments: { file_path: 'a.txt' } }] },
    { toolCalls: [{ id: 'w', name: 'write_file', arguments: { file_path: 'a.txt', content: 'two\n' } }] },
    { text: 'Wrote it.' },
  ]);
  const workspace = h.workspace({ 'a.txt': 'one\n' });
  const handle = await h.start({ prompt: 'read then write', model: 'lazy-then-write', workspace, permissionMode: 'auto', stream: false });
  expect(await handle.result()).toMatchObject({ text: 'Wrote it.' });
  const events = (await handle.fetchHistory()).events ?? [];
  // The start's reads (no checkpoint among them), the read round (read by its model call), then
  // step 0 before the write, after the second model call; the write's own checkpoint comes back with its result.
  const local = localActivityTypes(events);
  expect(local.at(-1)).toBe('checkpointWorkspace');
  const stepZero = events.findIndex((e) => localActivityTypes([e])[0] === 'checkpointWorkspace');
  const modelCalls = events.flatMap((e, i) => (e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel' ? [i] : []));
  expect(stepZero).toBeGreaterThan(modelCalls[1]!);
  expect(local.filter((type) => type === 'checkpointWorkspace')).toHaveLength(1);
  expect(scheduledActivityTypes(events)).toContain('write_file');
  const view = await handle.query(checkpointsQuery);
  expect(view.pending).toBeUndefined();
  expect(view.steps.map((s) => s.step)).toEqual([0, 2]);
  expect(view.steps[1]!.changed).toBe(1);
  const show = (id: string) => execFileSync('git', ['--git-dir', view.store!, 'show', `${id}:a.txt`]).toString();
  expect(show(view.steps[0]!.id)).toBe('one\n');
  expect(show(view.steps[1]!.id)).toBe('two\n');
});
