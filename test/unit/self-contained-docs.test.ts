import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Code, tests and docs say what and why in their own words: a number of a tracker that is not in
 * the repository is a reference nobody can follow (CHANGELOG.md says what changed when).
 */
const ROOT = path.resolve(__dirname, '../..');
const SKIP = new Set(['node_modules', '.git', 'artifacts', 'lib', 'coverage']);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name) || entry.name.startsWith('.cycle-probe')) return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return files(full);
    return /\.(ts|js|md|sh)$/.test(entry.name) ? [full] : [];
  });
}

test('no file cites an issue by number', () => {
  const roots = ['src', 'test', 'bench', 'demo'].map((d) => path.join(ROOT, d));
  const docs = readdirSync(ROOT).filter((f) => f.endsWith('.md')).map((f) => path.join(ROOT, f));
  const cited = [...roots.flatMap(files), ...docs, path.join(ROOT, '.ci/run')].flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .map((line, i) => ({ line, at: `${path.relative(ROOT, file)}:${i + 1}` }))
      .filter(({ line }) => /\bissues? #?\d+\b/i.test(line))
      .map(({ at }) => at),
  );
  expect(cited).toEqual([]);
});
