import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Harness } from '../support/harness';
import { toolResultsById } from '../support/tool-results';
import { pendingRequest, requestIdFor, waitFor } from '../support/wait-for';
import { messagesQuery, permissionDecisionSignal, statusQuery, stepsQuery } from '../../src/common/contract';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

const settings = (hooks: Record<string, unknown>) => ({ '.bareagent/settings.json': JSON.stringify({ hooks }) });
// The workspace's own hooks apply once the starter vouches for them (or a human allows them: test/security/workspace-trust.test.ts).
const trusted = { trustWorkspaceSettings: true };

test('a PreToolUse hook blocks bash(rm*) with exit 2, a PostToolUse hook logs each call, a PermissionRequest hook sees the question', async () => {
  const scenario = `hooks-${Math.random()}`;
  h.model.setScenario(scenario, [
    { toolCalls: [{ id: 'rm', name: 'bash', arguments: { command: 'rm -rf build' } }] },
    { toolCalls: [{ id: 'ls', name: 'bash', arguments: { command: 'ls build' } }] },
    { toolCalls: [{ id: 'mk', name: 'bash', arguments: { command: 'touch made.txt' } }] },
    { text: 'Done.' },
  ]);
  const workspace = h.workspace({
    'build/out.js': 'x',
    ...settings({
      PreToolUse: [{ matcher: 'bash(rm*)', hooks: [{ type: 'command', command: "echo 'rm is not allowed here: use git clean' >&2; exit 2" }] }],
      PostToolUse: [{ matcher: 'bash', hooks: [{ type: 'command', command: 'cat >> hook-log.jsonl; echo >> hook-log.jsonl' }] }],
      PermissionRequest: [{ hooks: [{ type: 'command', command: 'cat > asked.json' }] }],
    }),
  });
  const handle = await h.start({ prompt: 'clean up', model: scenario, workspace, stream: false, ...trusted });
  // The guard asks about `rm -rf` first: a hook runs only for a call the guard or a human let through, and can still block it.
  await pendingRequest(handle, 'rm');
  await handle.signal(permissionDecisionSignal, { requestId: await requestIdFor(handle, 'rm'), decision: 'allow' });
  // The hook sees the question's own request id (the runtime's, not the model's call id).
  const mk = await requestIdFor(handle, 'mk');
  const asked = () => JSON.parse(readFileSync(path.join(workspace, 'asked.json'), 'utf8')) as { request_id: string };
  await waitFor(async () => (existsSync(path.join(workspace, 'asked.json')) && asked().request_id === mk ? true : undefined), 'the PermissionRequest hook');
  expect(asked()).toMatchObject({
    hook_event_name: 'PermissionRequest',
    session_id: handle.workflowId,
    tool_name: 'bash',
    tool_input: { command: 'touch made.txt' },
    request_id: mk,
  });
  await handle.signal(permissionDecisionSignal, { requestId: mk, decision: 'allow' });
  expect(await handle.result()).toMatchObject({ text: 'Done.' });

  const results = toolResultsById(await handle.query(messagesQuery));
  expect(results.get('rm')).toEqual({ type: 'tool_result', tool_use_id: 'rm', content: 'Blocked by a PreToolUse hook: rm is not allowed here: use git clean', is_error: true });
  expect(existsSync(path.join(workspace, 'build/out.js'))).toBe(true);
  expect(results.get('ls')?.content).toContain('out.js');
  const logged = readFileSync(path.join(workspace, 'hook-log.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  // The blocked call never ran, so it has no PostToolUse.
  expect(logged.map((entry) => [entry.hook_event_name, entry.tool_input.command, entry.tool_response.is_error])).toEqual([
    ['PostToolUse', 'ls build', false],
    ['PostToolUse', 'touch made.txt', false],
  ]);
  const steps = await handle.query(stepsQuery);
  expect(steps.find((s) => s.reason === 'hook_blocked')).toMatchObject({ detail: 'PreToolUse hook: rm is not allowed here: use git clean', tools: ['bash rm -rf build'] });
  const status = await handle.query(statusQuery);
  expect(status.hooks?.commands).toEqual([
    "PreToolUse(bash(rm*)): echo 'rm is not allowed here: use git clean' >&2; exit 2",
    'PostToolUse(bash): cat >> hook-log.jsonl; echo >> hook-log.jsonl',
    'PermissionRequest: cat > asked.json',
  ]);
  // Each hook is an activity with a summary in the history: PermissionRequest for rm and for touch, PreToolUse for rm, PostToolUse for ls and touch.
  const history = await handle.fetchHistory();
  expect((history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runHook')).toHaveLength(5);
});

test('a hook that hangs is timed out, recorded, and the call goes on; a JSON decision blocks too', async () => {
  const scenario = `hook-hang-${Math.random()}`;
  h.model.setScenario(scenario, [
    { toolCalls: [{ id: 'w', name: 'write_file', arguments: { file_path: 'a.txt', content: 'a' } }] },
    { toolCalls: [{ id: 'e', name: 'edit_file', arguments: { file_path: 'a.txt', old_text: 'a', new_text: 'b' } }] },
    { text: 'Done.' },
  ]);
  const workspace = h.workspace(
    settings({
      PreToolUse: [
        { matcher: 'write_file', hooks: [{ command: 'sleep 30', timeout: 1 }] },
        { matcher: 'edit_file(a.txt)', hooks: [{ command: 'echo \'{"decision":"block","reason":"a.txt is generated"}\'' }] },
      ],
    }),
  );
  const started = Date.now();
  const handle = await h.start({ prompt: 'write', model: scenario, workspace, stream: false, permissionMode: 'auto', ...trusted });
  expect(await handle.result()).toMatchObject({ text: 'Done.' });
  expect(Date.now() - started).toBeLessThan(20_000);
  expect(readFileSync(path.join(workspace, 'a.txt'), 'utf8')).toBe('a');
  const steps = await handle.query(stepsQuery);
  expect(steps.find((s) => s.reason === 'hook_failed')?.detail).toBe('PreToolUse hook `sleep 30`: timed out after 1 s; the default applies');
  expect(toolResultsById(await handle.query(messagesQuery)).get('e')?.content).toBe('Blocked by a PreToolUse hook: a.txt is generated');
});

test('a Stop hook refuses the final answer once, with a reason the model sees', async () => {
  const scenario = `hook-stop-${Math.random()}`;
  h.model.setScenario(scenario, [{ text: 'All done, I think.' }, { text: 'Tests run; really done.' }]);
  const workspace = h.workspace(
    settings({ Stop: [{ hooks: [{ command: 'cat >> stops.jsonl; echo >> stops.jsonl; echo \'{"decision":"block","reason":"run the tests first"}\'' }] }] }),
  );
  const handle = await h.start({ prompt: 'finish', model: scenario, workspace, stream: false, ...trusted });
  expect(await handle.result()).toMatchObject({ text: 'Tests run; really done.' });
  const messages = await handle.query(messagesQuery);
  expect(messages.some((m) => typeof m.content === 'string' && m.content.startsWith('A Stop hook refused to let the run end: run the tests first'))).toBe(true);
  const steps = await handle.query(stepsQuery);
  expect(steps.filter((s) => s.reason === 'stop_refused')).toHaveLength(1);
  const stops = readFileSync(path.join(workspace, 'stops.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  expect(stops.map((s) => [s.last_assistant_message, s.stop_hook_active])).toEqual([
    ['All done, I think.', false],
    ['Tests run; really done.', true],
  ]);
});

test('a settings file that does not parse is reported in status and the run goes on without it', async () => {
  const scenario = `hook-bad-${Math.random()}`;
  h.model.setScenario(scenario, [{ text: 'Fine.' }]);
  const workspace = h.workspace({ '.bareagent/settings.json': JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'bash(', hooks: [] }] } }) });
  const handle = await h.start({ prompt: 'x', model: scenario, workspace, stream: false });
  expect(await handle.result()).toMatchObject({ text: 'Fine.' });
  const status = await handle.query(statusQuery);
  expect(status.hooks?.commands).toEqual([]);
  expect(status.hooks?.errors?.[0]).toMatch(/^\.bareagent\/settings\.json: hooks\.PreToolUse\.0\.matcher: must be a permission rule/);
});
