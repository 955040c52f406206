import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createReadHooks } from '../../src/activities/hooks/read-hooks';
import { hookMatches, hookVerdict } from '../../src/loop/hook-decisions';

test('matchers use the permission-rule syntax, commands matched on their parsed simple commands', () => {
  expect(hookMatches(undefined, 'bash', { command: 'ls' })).toBe(true);
  expect(hookMatches('bash(rm*)', 'bash', { command: 'rm -rf build' })).toBe(true);
  expect(hookMatches('bash(rm*)', 'bash', { command: 'make && rm -rf build' })).toBe(true);
  expect(hookMatches('bash(rm*)', 'bash', { command: 'ls build' })).toBe(false);
  expect(hookMatches('bash(rm*)', 'background_run', { command: 'env rm x' })).toBe(true);
  expect(hookMatches('write_file', 'edit_file', { file_path: 'a' })).toBe(false);
  expect(hookMatches('edit_file(src/*)', 'edit_file', { file_path: 'src/a.ts' })).toBe(true);
  expect(hookMatches('mcp__github__*', 'mcp__github__create_issue', {})).toBe(true);
});

test('exit 2 or a JSON block decision blocks; a timeout or another exit code is a failed hook', () => {
  const hook = { timeout: 5 };
  const run = { exitCode: 0, stdout: '', stderr: '', timedOut: false };
  expect(hookVerdict(hook, run)).toEqual({ kind: 'continue' });
  expect(hookVerdict(hook, { ...run, exitCode: 2, stderr: 'no\n' })).toEqual({ kind: 'block', reason: 'no' });
  expect(hookVerdict(hook, { ...run, stdout: '{"decision":"block","reason":"why"}' })).toEqual({ kind: 'block', reason: 'why' });
  expect(hookVerdict(hook, { ...run, stdout: '{"decision":"approve"}' })).toEqual({ kind: 'continue' });
  expect(hookVerdict(hook, { ...run, exitCode: 1, stderr: 'boom' })).toEqual({ kind: 'failed', error: 'exit code 1: boom' });
  expect(hookVerdict(hook, { ...run, exitCode: null, timedOut: true })).toEqual({ kind: 'failed', error: 'timed out after 5 s' });
});

test("the worker's hooks come first, then the workspace's; a missing worker file is reported", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bareagent-hooks-'));
  mkdirSync(path.join(dir, '.bareagent'));
  writeFileSync(path.join(dir, '.bareagent/settings.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ command: 'ws' }] }] } }));
  const workerFile = path.join(dir, 'worker-hooks.json');
  writeFileSync(workerFile, JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'bash', hooks: [{ command: 'worker', timeout: 3 }] }] } }));
  expect(await createReadHooks(workerFile)({ workspace: dir })).toEqual({
    hooks: [
      { event: 'PreToolUse', matcher: 'bash', command: 'worker', timeout: 3, source: 'worker' },
      { event: 'Stop', command: 'ws', timeout: 60, source: '.bareagent/settings.json' },
    ],
  });
  const missing = await createReadHooks(path.join(dir, 'nope.json'))({ workspace: dir });
  expect(missing.errors?.[0]).toMatch(/^worker: ENOENT/);
  expect(missing.hooks).toHaveLength(1);
});
