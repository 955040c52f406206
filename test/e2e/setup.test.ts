import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { platformFamily } from '../../src/doctor/run-doctor';

/**
 * `npm run setup` on a machine "missing" bubblewrap (BAREAGENT_BWRAP names no file): it installs
 * the package with the system's package manager, here a stand-in apt-get first on PATH that
 * records its arguments, then shows the doctor's table and fails, since the check still fails.
 * As root on Debian/Ubuntu only (CI): elsewhere setup would call sudo, which resets PATH.
 */
const ROOT = path.resolve(__dirname, '../..');
const rootOnDebian = process.getuid?.() === 0 && platformFamily() === 'debian';

(rootOnDebian ? test : test.skip)('installs the missing package with apt-get, then shows the table and exits 1 while the check still fails', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fake-apt-'));
  const calls = path.join(dir, 'calls');
  writeFileSync(path.join(dir, 'apt-get'), `#!/bin/sh\necho "apt-get $* DEBIAN_FRONTEND=$DEBIAN_FRONTEND" >> ${calls}\n`);
  chmodSync(path.join(dir, 'apt-get'), 0o755);
  const result = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/doctor/setup-main.ts'), '--runtime'], {
      cwd: ROOT,
      env: { ...process.env, PATH: `${dir}:${process.env.PATH}`, BAREAGENT_BWRAP: '/nonexistent/bwrap', NO_COLOR: '1', DEBIAN_FRONTEND: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
  expect(existsSync(calls)).toBe(true);
  expect(readFileSync(calls, 'utf8').trim().split('\n')).toEqual([
    'apt-get update DEBIAN_FRONTEND=',
    'apt-get install -y bubblewrap DEBIAN_FRONTEND=noninteractive',
  ]);
  expect(result.out).toContain('npm run setup: env DEBIAN_FRONTEND=noninteractive apt-get install -y bubblewrap');
  expect(result.out).toMatch(/^bubblewrap\s+MISSING/m);
  expect(result.code).toBe(1);
});
