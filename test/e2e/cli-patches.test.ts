import { randomUUID } from 'node:crypto';
import { PATCH_LEDGER } from '../../src/common/patch-ledger';
import { startedBefore, type PatchReport } from '../../src/cli/commands/patches';
import { cliHarness, runCli } from '../support/cli';
import type { Harness } from '../support/harness';
import { pendingRequest } from '../support/wait-for';

/** `bareagent patches` against the test server: an open run counts for every patch shipped on or after its start day. */
let h: Harness;
let env: Record<string, string>;
beforeAll(async () => {
  ({ h, env } = await cliHarness());
});
afterAll(() => h.close());

test('a run waiting for a human is counted under exactly the patches it may need, and the table says which may go', async () => {
  const id = `patches-${randomUUID().slice(0, 8)}`;
  h.model.setScenario(id, [{ text: 'Cleaning.', toolCalls: [{ id: 'call_rm', name: 'bash', arguments: { command: 'rm -rf build' } }] }, { text: 'Done.' }]);
  const handle = await h.start({ prompt: 'clean up', model: id, workspace: h.workspace({ 'build/x': 'x' }) }, id);
  await pendingRequest(handle);
  const started = (await handle.describe()).startTime.toISOString();

  const json = await runCli(['patches', '--query', `WorkflowId = '${id}'`, '--json'], env);
  expect(json.code).toBe(0);
  const reports = JSON.parse(json.stdout) as PatchReport[];
  expect(reports.map((r) => r.id)).toEqual(PATCH_LEDGER.map((p) => p.id));
  for (const r of reports) {
    const counted = r.state !== 'removed' && started < startedBefore(r.shipped) ? 1 : 0;
    expect({ id: r.id, open: r.openRunsBefore, runs: r.runs }).toEqual({ id: r.id, open: counted, runs: counted ? [id] : [] });
  }

  const table = await runCli(['patches', '--query', `WorkflowId = '${id}'`], env);
  expect(table.code).toBe(0);
  expect(table.stdout).toMatch(/PATCH\s+STATE\s+SHIPPED\s+OPEN RUNS BEFORE\s+VERDICT/);
  // 0.2.0 folded every development patch: each is listed, removed, with nothing to keep.
  expect(table.stdout).toMatch(/parsed-shell-guard\s+removed\s+2026-11-30\s+0\s+removed/);
  await handle.terminate('test over');
});
