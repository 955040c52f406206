import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Every relative link and anchor in the README, docs/ and the top-level documents leads somewhere:
 * the file exists and, for `#anchor`, a heading of that file has that anchor (GitHub's rule:
 * lower case, punctuation dropped, spaces to hyphens, `-1`, `-2` for repeats).
 */
const root = path.resolve(__dirname, '../..');
const documents = [
  'README.md',
  'ARCHITECTURE.md',
  'BENCHMARKS.md',
  'EVALS.md',
  'CHANGELOG.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
].filter((file) => existsSync(path.join(root, file)));

/** Lines outside fenced code blocks. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of prose(text)) {
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const base = (heading[1] ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

function linksOf(text: string): string[] {
  const found: string[] = [];
  for (const line of prose(text)) {
    const withoutCode = line.replace(/`[^`]*`/g, '');
    for (const match of withoutCode.matchAll(/\]\(([^)\s]+)\)/g)) if (match[1]) found.push(match[1]);
  }
  return found.filter((target) => !/^[a-z][a-z+.-]*:/i.test(target));
}

describe('documentation links', () => {
  it('finds the documents it checks', () => {
    expect(documents).toEqual(expect.arrayContaining(['README.md', 'ARCHITECTURE.md', 'docs/security-and-trust.md']));
  });

  it.each(documents)('every relative link and anchor in %s resolves', (file) => {
    const text = readFileSync(path.join(root, file), 'utf8');
    const broken: string[] = [];
    for (const target of linksOf(text)) {
      const [relative, anchor] = target.split('#', 2);
      const resolved = relative ? path.resolve(path.dirname(path.join(root, file)), relative) : path.join(root, file);
      if (!existsSync(resolved)) {
        broken.push(`${target}: no such file`);
        continue;
      }
      if (anchor === undefined || statSync(resolved).isDirectory()) continue;
      if (!anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${target}: no heading with that anchor`);
    }
    expect(broken).toEqual([]);
  });

  it('computes anchors as GitHub does, so a broken anchor is caught', () => {
    const anchors = anchorsOf('# The `bareagent` client script\n## Fork and resume\n## Fork and resume\n```\n# not a heading\n```\n');
    expect([...anchors]).toEqual(['the-bareagent-client-script', 'fork-and-resume', 'fork-and-resume-1']);
  });
});
