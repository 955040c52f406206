import { git, nulList } from './git';

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** The diff options that keep a workspace's attributes from choosing how it is shown. */
const PLAIN = ['--no-textconv', '--no-ext-diff', '--no-color', '-M'];

/** A unified diff (or `--stat`) between two snapshots; from the empty tree when there is no `from`. */
export async function diffText(store: string, from: string | undefined, to: string, stat: boolean): Promise<string> {
  const args = ['diff-tree', '-r', ...PLAIN, ...(stat ? ['--stat=200'] : ['-p', '--binary']), from ?? EMPTY_TREE, to];
  return (await git(args, { store })).toString('utf8');
}

export interface FileDiff {
  path: string;
  status: string;
  /** Lines added and removed; null for a binary file. */
  added: number | null;
  removed: number | null;
}

/** The same difference as data, for `--json`. */
export async function diffFiles(store: string, from: string | undefined, to: string): Promise<FileDiff[]> {
  const base = from ?? EMPTY_TREE;
  const [status, numstat] = await Promise.all([
    git(['diff-tree', '-r', '-z', '--no-renames', '--name-status', base, to], { store }),
    git(['diff-tree', '-r', '-z', '--no-renames', '--numstat', ...PLAIN.slice(0, 2), base, to], { store }),
  ]);
  const counts = new Map<string, { added: number | null; removed: number | null }>();
  for (const item of nulList(numstat)) {
    const [added, removed, ...name] = item.split('\t');
    const numberOrNull = (raw: string | undefined) => (raw === '-' || raw === undefined ? null : Number(raw));
    counts.set(name.join('\t'), { added: numberOrNull(added), removed: numberOrNull(removed) });
  }
  const items = nulList(status);
  const files: FileDiff[] = [];
  for (let i = 0; i + 1 < items.length; i += 2) {
    const file = items[i + 1]!;
    files.push({ path: file, status: items[i]!, ...(counts.get(file) ?? { added: null, removed: null }) });
  }
  return files;
}
