/** The CLI finds the server through a `temporal` CLI profile file alone (TEMPORAL_CONFIG_FILE), no TEMPORAL_ADDRESS. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Harness } from '../support/harness';
import { runCli } from '../support/cli';
import { freePort } from '../support/free-port';
import { waitFor } from '../support/wait-for';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
});
afterAll(() => h.close());

function profileEnv(toml: string, profile: string): Record<string, string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'temporal-config-'));
  const file = path.join(dir, 'temporal.toml');
  writeFileSync(file, toml);
  // TEMPORAL_ADDRESS empty counts as unset: only the file can say where the server is.
  return { TEMPORAL_ADDRESS: '', TEMPORAL_NAMESPACE: '', TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: profile, HOME: dir, BAREAGENT_TASK_QUEUE: h.taskQueue };
}

test('a TOML profile pointed at by TEMPORAL_CONFIG_FILE connects `bareagent list` to the dev server', async () => {
  const workflowId = `profile-${randomUUID()}`;
  await h.start({ prompt: 'listed through a profile', workspace: h.workspace() }, workflowId);
  const env = profileEnv(`[profile.other]\naddress = "127.0.0.1:1"\n\n[profile.dev]\naddress = "${h.env.address}"\nnamespace = "default"\n`, 'dev');
  const listed = await waitFor(async () => {
    const result = await runCli(['list', '--query', `WorkflowId = '${workflowId}'`, '--json'], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const runs = JSON.parse(result.stdout) as { workflowId: string }[];
    return runs.length ? runs : undefined;
  }, 'the run in the list');
  expect(listed.map((r) => r.workflowId)).toEqual([workflowId]);
  await h.client.workflow.getHandle(workflowId).terminate('test done');
});

test('the address the profile names is the one used: a profile for a closed port fails naming it', async () => {
  const port = await freePort();
  const result = await runCli(['list', '--json'], profileEnv(`[profile.dev]\naddress = "127.0.0.1:${port}"\n`, 'dev'));
  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain(`Cannot reach Temporal at 127.0.0.1:${port}`);
});
