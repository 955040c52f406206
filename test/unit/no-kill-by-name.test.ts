import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Other people's processes share the machines this project runs on: nothing here may stop a
 * process it did not start. Killing by name (the p-prefixed kill with -f, or kill-all) hits everyone's; a process is
 * stopped by the pid its starter kept. The two commands are spelled in pieces so this file does not match.
 */
const ROOT = path.join(__dirname, '../..');
const BY_NAME = new RegExp(`\\b(${['p', 'kill'].join('')}|${['kill', 'all'].join('')})\\b`);

test('no tracked file stops processes by name', () => {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  expect(files.length).toBeGreaterThan(100);
  const offenders = files.filter((file) => !/\.(png|jpg|gz|tgz|wasm)$/.test(file) && BY_NAME.test(readFileSync(path.join(ROOT, file), 'utf8')));
  expect(offenders).toEqual([]);
});
