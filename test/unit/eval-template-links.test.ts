import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
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
