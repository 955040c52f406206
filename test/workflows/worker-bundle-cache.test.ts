/**
 * `bareagent worker` (`npm run worker`) bundles the workflow code once per source version and a
 * restarted worker loads that bundle instead of bundling again (src/worker/cached-bundle.ts): a
 * crash or a deploy costs the worker's start, not seconds of webpack.
 */
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Harness } from '../support/harness';
import { WorkerProcess } from '../support/worker-process';

let h: Harness;
const workers: WorkerProcess[] = [];
beforeAll(async () => {
  h = await Harness.create();
});
afterAll(async () => {
  for (const worker of workers) await worker.kill();
  await h.close();
});

test('a restarted worker loads the bundle its first start cached, and runs an agent on it', async () => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'bareagent-home-'));
  // No prebuilt bundle: the worker's own default, with an empty cache.
  const env = { BAREAGENT_HOME: home, BAREAGENT_WORKFLOW_BUNDLE: '' };
  const cached = () => readdirSync(path.join(home, 'cache')).filter((name) => /^workflow-bundle-[0-9a-f]{16}\.js$/.test(name));

  const first = await WorkerProcess.start(h, env);
  workers.push(first);
  expect(cached()).toHaveLength(1);
  const bundle = path.join(home, 'cache', cached()[0] as string);
  const written = statSync(bundle).mtimeMs;
  await first.kill();

  const second = await WorkerProcess.start(h, env);
  workers.push(second);
  expect(cached()).toHaveLength(1);
  expect(statSync(bundle).mtimeMs).toBe(written);
  // The SDK logs every bundle it builds; the restarted worker built none.
  expect(second.output.text).not.toContain('Workflow bundle created');

  h.model.setScenario('bundle-cache', [{ text: 'Answered from the cached bundle.' }]);
  const handle = await h.start({ prompt: 'one answer', model: 'bundle-cache', workspace: h.workspace() });
  await expect(handle.result()).resolves.toMatchObject({ text: 'Answered from the cached bundle.' });
});
