import { statusQuery } from '../../src/common/contract';
import { searchAttributes } from '../../src/workflows/search-attribute-keys';
import { cliEnv, runCli } from '../support/cli';
import { Harness } from '../support/harness';

/**
 * A run whose input names no model, served by a worker elsewhere (its BAREAGENT_MODEL is not this
 * CLI's): `status` shows the model that answered, open and after the run closed (replayed), and
 * the run's BareAgentModel search attribute names it.
 */
let h: Harness;

beforeAll(async () => {
  h = await Harness.create({ 'remote-default': [{ text: 'Answered by the worker default.' }] });
  await h.startWorker({ defaultModel: 'remote-default' });
});

afterAll(() => h?.close());

test("status names the model of a run its worker chose (the worker's default), also once the run closed", async () => {
  const handle = await h.start({ prompt: 'Which model are you?', workspace: h.workspace(), permissionMode: 'default' });
  await handle.result();
  expect((await handle.query(statusQuery)).model).toBe('remote-default');
  // The run's BareAgentModel search attribute (what `list` and the Web UI show) names it too.
  const description = await handle.describe();
  expect(description.typedSearchAttributes.get(searchAttributes.model)).toBe('remote-default');
  await h.stopWorkers();
  // No worker serves it now: the CLI replays the closed run, and the model is still known.
  const status = await runCli(['status', handle.workflowId], { ...cliEnv(h), BAREAGENT_MODEL: '' }, undefined, 90_000);
  expect(status.stdout).toMatch(new RegExp(`^${handle.workflowId}  \\S+  iteration 1/\\d+  tokens \\d+ in / \\d+ out  model remote-default$`, 'm'));
  expect(status.code).toBe(0);
});
