import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkPins, filesNamedByCommand, pinFiles } from '../../src/activities/settings/pinned-programs';
import { workspaceRoot } from '../../src/activities/tools/workspace';

const files = (command: string) => filesNamedByCommand(command).files.map((f) => f.file);

test('the workspace files a command runs: its program when a path, an interpreter\'s script, inside sh -c and after wrappers', () => {
  expect(files('bash scripts/check.sh')).toEqual(['scripts/check.sh']);
  expect(files('./bin/tool --fast')).toEqual(['bin/tool']);
  expect(files('timeout 10 env A=1 python3 -u tool.py data.json')).toEqual(['tool.py', 'data.json']);
  expect(files("sh -c 'node x.js && ./y.sh'")).toEqual(['x.js', 'y.sh']);
  expect(files("echo 'use git clean' >&2; exit 2")).toEqual([]);
  expect(files('cat >> .bareagent/writes.jsonl')).toEqual([]);
  expect(filesNamedByCommand('python3 -m tool').unpinned).toEqual(['python3 -m loads a module from the workspace']);
  expect(filesNamedByCommand('npm test').unpinned).toEqual(["npm runs the workspace's own build files"]);
  expect(filesNamedByCommand('$TOOL x').unpinned?.[0]).toMatch(/^its program is computed/);
});

test('pinned by digest through the safe open; an absent program is pinned absent; a change or an appearance refuses', async () => {
  const root = workspaceRoot(mkdtempSync(path.join(os.tmpdir(), 'pins-')));
  mkdirSync(path.join(root, 'scripts'));
  writeFileSync(path.join(root, 'scripts/check.sh'), 'echo ok\n');
  const { pins } = await pinFiles(root, filesNamedByCommand('bash scripts/check.sh; ./bin/later; cat notes.md'));
  expect(pins).toEqual([
    { path: 'scripts/check.sh', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    { path: 'bin/later', sha256: null },
  ]);
  await expect(checkPins(root, pins)).resolves.toBeUndefined();
  mkdirSync(path.join(root, 'bin'));
  writeFileSync(path.join(root, 'bin/later'), '#!/bin/sh\n');
  await expect(checkPins(root, pins)).rejects.toThrow('bin/later changed after the run started (absent when the human saw it, now sha256 ');
  writeFileSync(path.join(root, 'scripts/check.sh'), 'touch PWNED\n');
  await expect(checkPins(root, pins)).rejects.toThrow(/^scripts\/check\.sh changed after the run started/);
});

test("a pinned shell script's helpers are pinned too (sourced, run, or its #! says shell); other languages and git are said to run unpinned code", async () => {
  const root = workspaceRoot(mkdtempSync(path.join(os.tmpdir(), 'pins-')));
  mkdirSync(path.join(root, 'scripts'));
  mkdirSync(path.join(root, 'lib'));
  writeFileSync(path.join(root, 'scripts/check.sh'), '#!/bin/bash\n# a check\nsource lib/helpers.sh\nif ./scripts/inner; then node lib/lint.js; fi\n');
  writeFileSync(path.join(root, 'lib/helpers.sh'), 'say() { echo "$1"; }\n');
  writeFileSync(path.join(root, 'scripts/inner'), '#!/usr/bin/env bash\n. lib/deep.sh\n');
  writeFileSync(path.join(root, 'lib/lint.js'), 'require("./rules")\n');
  const found = await pinFiles(root, filesNamedByCommand('bash scripts/check.sh'));
  expect(found.pins.map((p) => [p.path, p.sha256 === null ? 'absent' : 'sha256'])).toEqual([
    ['scripts/check.sh', 'sha256'],
    ['lib/helpers.sh', 'sha256'],
    ['scripts/inner', 'sha256'],
    ['lib/lint.js', 'sha256'],
    ['lib/deep.sh', 'absent'],
  ]);
  expect(found.unpinned).toBe('lib/lint.js may load other workspace files (node imports) that no digest covers');
  // A sourced helper rewritten by the agent refuses the hook, as its script would.
  await expect(checkPins(root, found.pins)).resolves.toBeUndefined();
  writeFileSync(path.join(root, 'lib/helpers.sh'), 'touch PWNED\n');
  await expect(checkPins(root, found.pins)).rejects.toThrow(/^lib\/helpers\.sh changed after the run started/);
  expect(filesNamedByCommand('git diff --check').unpinned).toEqual(["git runs what the workspace's .git/config names (hooks, fsmonitor, aliases)"]);
});

test("relative names follow the script's cd and pushd: every folder it may be in; a cd to a computed folder leaves them named as unpinned", () => {
  const script = { folders: [''], scriptFolder: 'scripts' };
  const inScript = (text: string) => filesNamedByCommand(text, 1, script);
  expect(inScript('cd "$(dirname "$0")"\nbash lint.sh').files.map((f) => f.file)).toEqual(['lint.sh', 'scripts/lint.sh']);
  expect(inScript('cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && bash tools/lint.sh').files.map((f) => f.file)).toEqual(['tools/lint.sh']);
  expect(files('pushd sub >/dev/null; ./a; popd; cd ..; bash b.sh')).toEqual(['a', 'sub/a', 'b.sh', 'sub/b.sh']);
  expect(files('cd lib && cd deep; node x.js')).toEqual(['x.js', 'lib/x.js', 'deep/x.js', 'lib/deep/x.js']); // either cd may fail
  // $1's folder is not the script's: not known before it runs.
  expect(inScript('cd "$(dirname "$1")"; bash lint.sh')).toEqual({ files: [], unpinned: ['a cd goes to a folder computed when it runs ("$(dirname $)"): lint.sh is relative to it, so no digest covers it'] });
  expect(filesNamedByCommand('cd "$DIR"; bash x.sh; /opt/tool')).toEqual({
    files: [{ file: '/opt/tool', mustExist: false, runBy: 'program' }],
    unpinned: ['a cd goes to a folder computed when it runs ("$"): x.sh is relative to it, so no digest covers it'],
  });
  expect(filesNamedByCommand('cd; ./x').unpinned).toEqual(['a cd goes to the home folder: ./x is relative to it, so no digest covers it']);
  expect(filesNamedByCommand('cd /tmp; echo hi')).toEqual({ files: [], unpinned: [] });
  // An inline script's own cd composes with its caller's.
  expect(files("cd a; sh -c 'cd sub; bash x.sh'")).toEqual(['x.sh', 'a/x.sh', 'sub/x.sh', 'a/sub/x.sh']);
});

test("a sourced file's $0 is its caller's: its cd \"$(dirname \"$0\")\" is named, not followed to its own folder", async () => {
  const root = workspaceRoot(mkdtempSync(path.join(os.tmpdir(), 'pins-')));
  mkdirSync(path.join(root, 'lib'));
  writeFileSync(path.join(root, 'lib/env.sh'), 'cd "$(dirname "$0")"\n. ./more.sh\n');
  const found = await pinFiles(root, filesNamedByCommand('. lib/env.sh'));
  expect(found.pins.map((p) => p.path)).toEqual(['lib/env.sh']);
  expect(found.unpinned).toBe('lib/env.sh: a cd goes to a folder computed when it runs ("$(dirname $)"): ./more.sh is relative to it, so no digest covers it');
});

test("a script's helper after cd \"$(dirname \"$0\")\" is pinned in the script's folder, and a change there refuses", async () => {
  const root = workspaceRoot(mkdtempSync(path.join(os.tmpdir(), 'pins-')));
  mkdirSync(path.join(root, 'scripts'));
  writeFileSync(path.join(root, 'scripts/check.sh'), 'cd "$(dirname "$0")"\nbash lint.sh\n');
  writeFileSync(path.join(root, 'scripts/lint.sh'), 'echo ok\n');
  const found = await pinFiles(root, filesNamedByCommand('bash scripts/check.sh'));
  expect(found.pins.map((p) => [p.path, p.sha256 === null ? 'absent' : 'sha256'])).toEqual([
    ['scripts/check.sh', 'sha256'],
    ['lint.sh', 'absent'],
    ['scripts/lint.sh', 'sha256'],
  ]);
  expect(found.unpinned).toBeUndefined();
  writeFileSync(path.join(root, 'scripts/lint.sh'), 'touch PWNED\n');
  await expect(checkPins(root, found.pins)).rejects.toThrow(/^scripts\/lint\.sh changed after the run started/);
});
