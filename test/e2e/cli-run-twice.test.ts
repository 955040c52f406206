import { randomUUID } from 'node:crypto';
import { Harness } from '../support/harness';
import { runCli } from '../support/cli';

/**
 * A second `bareagent run` right after the first saw the first one's stopped
 * in-process worker still listed among the pollers, started no worker and waited for ever.
 */
let h: Harness;
let env: Record<string, string>;
const suffix = randomUUID().slice(0, 8);
beforeAll(async () => {
  h = await Harness.create(); // no harness worker: each `run` must start its own
  env = {
    TEMPORAL_ADDRESS: h.env.address,
    BAREAGENT_TASK_QUEUE: h.taskQueue,
    BAREAGENT_UI_PORT: String(h.env.uiPort),
    OPENAI_BASE_URL: h.model.url,
    OPENAI_API_KEY: 'sk-test-secret-never-in-history',
  };
});
afterAll(() => h.close());

test('two `bareagent run` in a row on the same task queue both finish', async () => {
  for (const n of [1, 2]) {
    const model = `twice-${n}-${suffix}`;
    h.model.setScenario(model, [{ text: `ANSWER ${n}` }]);
    const args = ['run', `say ${n}`, '--model', model, '--workspace', h.workspace(), '--id', `${model}-run`];
    const result = await runCli(args, env, undefined, 60_000);
    expect({ n, timedOut: result.timedOut, code: result.code, stderr: result.stderr }).toMatchObject({ n, code: 0 });
    expect(result.stdout).toContain(`ANSWER ${n}`);
    expect(result.stderr).toContain('starting one in this process');
    expect(result.stderr).not.toContain('No worker has picked up');
  }
}, 150_000);
