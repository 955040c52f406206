import { randomUUID } from 'node:crypto';
import { type Harness } from '../support/harness';
import { cliHarness, runCli } from '../support/cli';
import { waitFor } from '../support/wait-for';

/** `bareagent schedule create|list|trigger|delete` against the test dev server and a harness worker. */
let h: Harness;
let env: Record<string, string>;
const suffix = randomUUID().slice(0, 8);
beforeAll(async () => {
  ({ h, env } = await cliHarness());
});
afterAll(() => h.close());

test('a schedule is created, listed, triggered into an ordinary agentRun that list shows, and deleted', async () => {
  const scheduleId = `sched-${suffix}`;
  const model = `sched-${suffix}`;
  h.model.setScenario(model, [{ text: 'Scheduled run done.' }]);
  // 29 February: the next firing is years away, so only the trigger starts a run.
  const created = await runCli(['schedule', 'create', scheduleId, 'Nightly chores\nsecond line', '--cron', '0 3 29 2 *', '--model', model, '-w', h.workspace()], env);
  expect(created.stderr).toBe('');
  expect(created.code).toBe(0);
  expect(created.stdout).toContain(`Schedule ${scheduleId} created (cron 0 3 29 2 *, overlap skip)`);

  const again = await runCli(['schedule', 'create', scheduleId, 'x', '--every', '1h'], env);
  expect(again.code).toBe(2);
  expect(again.stderr).toContain(`Schedule "${scheduleId}" already exists`);

  const listed = JSON.parse((await runCli(['schedule', 'list', '--json'], env)).stdout) as Array<Record<string, unknown>>;
  const mine = listed.find((s) => s.scheduleId === scheduleId);
  expect(mine).toMatchObject({ spec: 'cron 0 3 29 2 *', paused: false });
  expect(new Date(String(mine?.nextRun)).getUTCDate()).toBe(29);
  const table = await runCli(['schedule', 'list'], env);
  expect(table.stdout).toMatch(/^SCHEDULE ID\s+SPEC\s+NEXT RUN\s+PAUSED$/m);
  expect(table.stdout).toMatch(new RegExp(`^${scheduleId}\\s+cron 0 3 29 2 \\*\\s+\\d{4}-02-29 \\S+\\s+no$`, 'm'));

  const triggered = await runCli(['schedule', 'trigger', scheduleId, '--json'], env);
  expect(triggered.code).toBe(0);
  const { workflowId } = JSON.parse(triggered.stdout) as { workflowId: string };
  expect(workflowId).toMatch(new RegExp(`^${scheduleId}-`));
  expect(await h.client.workflow.getHandle(workflowId).result()).toMatchObject({ text: 'Scheduled run done.' });

  // The run's own search attributes (upserted by the workflow) work for a scheduled run too.
  await waitFor(async () => {
    for await (const info of h.client.workflow.list({ query: `BareAgentModel = '${model}' AND BareAgentStatus = 'completed'` })) return info;
    return undefined;
  }, 'the scheduled run in visibility');
  const runs = JSON.parse((await runCli(['list', '--model', model, '--json'], env)).stdout) as Array<Record<string, unknown>>;
  expect(runs).toEqual([expect.objectContaining({ workflowId, status: 'completed', model, summary: 'Nightly chores' })]);

  const deleted = await runCli(['schedule', 'delete', scheduleId], env);
  expect(deleted.code).toBe(0);
  const after = JSON.parse((await runCli(['schedule', 'list', '--json'], env)).stdout) as Array<{ scheduleId: string }>;
  expect(after.map((s) => s.scheduleId)).not.toContain(scheduleId);
});

test('an unknown schedule id, a bad interval, a bad cron and bad run flags are usage errors', async () => {
  const unknown = `no-such-${suffix}`;
  for (const verb of ['trigger', 'delete']) {
    const result = await runCli(['schedule', verb, unknown], env);
    expect({ verb, code: result.code }).toEqual({ verb, code: 2 });
    expect(result.stderr).toContain(`No schedule "${unknown}"`);
  }
  const badEvery = await runCli(['schedule', 'create', `bad-${suffix}`, 'x', '--every', 'daily'], env);
  expect(badEvery.code).toBe(2);
  expect(badEvery.stderr).toContain('--every must be a duration');
  const badCron = await runCli(['schedule', 'create', `bad-${suffix}`, 'x', '--cron', '0 3 * *'], env);
  expect(badCron.code).toBe(2);
  expect(badCron.stderr).toContain('--cron needs five fields');
  const badField = await runCli(['schedule', 'create', `bad-${suffix}`, 'x', '--cron', '99 3 * * *'], env);
  expect(badField.code).toBe(2);
  expect(badField.stderr).toContain('Refused by the server: invalid schedule spec: Minute is not in range');
  const badFlag = await runCli(['schedule', 'create', `bad-${suffix}`, 'x', '--every', '1h', '--max-iterations', '-3'], env);
  expect(badFlag.code).toBe(2);
  const neither = await runCli(['schedule', 'create', `bad-${suffix}`, 'x'], env);
  expect(neither.stderr).toContain('exactly one of --cron');
  const overlap = await runCli(['schedule', 'create', `bad-${suffix}`, 'x', '--every', '1h', '--overlap', 'sometimes'], env);
  expect(overlap.code).toBe(2);
  const listed = JSON.parse((await runCli(['schedule', 'list', '--json'], env)).stdout) as Array<{ scheduleId: string }>;
  expect(listed.map((s) => s.scheduleId)).not.toContain(`bad-${suffix}`);
});
