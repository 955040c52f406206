import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSuite } from '../../src/eval/suite';
import { copyTemplate } from '../../src/eval/template-links';

/** An eval template's symlinks: in-tree ones stay relative in each trial's copy; ones that point out refuse the suite. */
function task(links: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bareagent-evaltask-'));
  writeFileSync(path.join(dir, 'task.json'), JSON.stringify({ prompt: 'fix it', check: 'true' }));
  mkdirSync(path.join(dir, 'workspace', 'sub'), { recursive: true });
  writeFileSync(path.join(dir, 'workspace', 'a.txt'), 'template\n');
  for (const [link, target] of Object.entries(links)) symlinkSync(target, path.join(dir, 'workspace', link));
  return dir;
}

test("a trial's copy keeps in-tree links relative: writing through one changes the copy, never the template", () => {
  const dir = task({ 'link.txt': 'a.txt', 'sub/up.txt': '../a.txt' });
  const [loaded] = loadSuite(dir);
  const copy = path.join(mkdtempSync(path.join(os.tmpdir(), 'bareagent-trial-')), 'ws');
  copyTemplate(loaded!.template, copy);
  expect(readlinkSync(path.join(copy, 'link.txt'))).toBe('a.txt');
  expect(readlinkSync(path.join(copy, 'sub', 'up.txt'))).toBe('../a.txt');
  writeFileSync(path.join(copy, 'sub', 'up.txt'), 'the agent\n');
  expect(readFileSync(path.join(copy, 'a.txt'), 'utf8')).toBe('the agent\n');
  expect(readFileSync(path.join(dir, 'workspace', 'a.txt'), 'utf8')).toBe('template\n');
});

test('a template link that points outside it (absolute, or past its top) refuses the suite, naming it', () => {
  expect(() => loadSuite(task({ 'passwd': '/etc/passwd' }))).toThrow(/points? outside.*passwd -> \/etc\/passwd/);
  expect(() => loadSuite(task({ 'sub/out': '../../task.json' }))).toThrow('sub/out -> ../../task.json');
});

/** loadSuite in a Node process of its own, killed after 20 s: a read that blocks must fail the test, not hang it. */
function loadInChild(dir: string): { status: number | null; out: string } {
  const script = `require('tsx/cjs'); try { require(${JSON.stringify(path.resolve(__dirname, '../../src/eval/suite.ts'))}).loadSuite(process.argv[1]); console.log('loaded'); } catch (e) { console.log('refused: ' + e.message); }`;
  const child = spawnSync(process.execPath, ['-e', script, dir], { encoding: 'utf8', timeout: 20_000 });
  return { status: child.status, out: child.stdout };
}

test('a FIFO named task.json refuses the suite instead of blocking the eval for ever', () => {
  const dir = task({});
  rmSync(path.join(dir, 'task.json'));
  execFileSync('mkfifo', [path.join(dir, 'task.json')]);
  const loaded = loadInChild(dir);
  expect(loaded.status).toBe(0);
  expect(loaded.out).toMatch(/^refused: eval: .*task\.json is not a regular file/);
}, 40_000);

test('a task.json linked to another file is not read (its parse error would quote that file)', () => {
  const secret = path.join(mkdtempSync(path.join(os.tmpdir(), 'bareagent-secret-')), 'id_rsa');
  writeFileSync(secret, 'canary-5f PRIVATE KEY\n');
  const dir = task({});
  rmSync(path.join(dir, 'task.json'));
  symlinkSync(secret, path.join(dir, 'task.json'));
  let message = '';
  try {
    loadSuite(dir);
  } catch (err) {
    message = (err as Error).message;
  }
  expect(message).toMatch(/task\.json is not a regular file/);
  expect(message).not.toContain('canary-5f');
});

test('a FIFO in the template refuses the suite when loaded, naming it (a trial copy would throw half way)', () => {
  const dir = task({});
  execFileSync('mkfifo', [path.join(dir, 'workspace', 'sub', 'pipe')]);
  expect(() => loadSuite(dir)).toThrow(/holds FIFOs, sockets or devices.*sub\/pipe/);
});

test('a template that is itself a link is refused: trials copy the suite\'s own directory only', () => {
  const dir = task({});
  const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'bareagent-elsewhere-'));
  writeFileSync(path.join(elsewhere, 'operator.txt'), 'x');
  rmSync(path.join(dir, 'workspace'), { recursive: true });
  symlinkSync(elsewhere, path.join(dir, 'workspace'));
  expect(() => loadSuite(dir)).toThrow(/workspace is a link/);
});
