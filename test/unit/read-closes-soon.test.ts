import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { readFile } from '../../src/activities/tools/read-file';
import { toolSchemas } from '../../src/common/tool-schemas';

/** read_file answers before its file's close has gone through the thread pool; the descriptors still close. */
const openFds = () => readdirSync('/proc/self/fd').length;

test('a read_file leaves no descriptor open once its close has run', async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'bareagent-close-'));
  writeFileSync(path.join(root, 'a.txt'), 'one\ntwo\n');
  const args = toolSchemas.read_file.parse({ file_path: 'a.txt' });
  const before = openFds();
  for (let i = 0; i < 200; i++) expect(await readFile(root, args)).toBe('1: one\n2: two');
  for (let waited = 0; openFds() > before && waited < 500; waited++) await nextTurn();
  expect(openFds()).toBeLessThanOrEqual(before);
});
