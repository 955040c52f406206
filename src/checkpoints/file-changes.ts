import { git, nulList } from './git';

/** How much of a change is sent whole: the rest is named, with why it was not shown. */
export interface FileChangeLimits {
  /** Files shown per change; more are counted. */
  files: number;
  /** Bytes of one side of one file shown as text. */
  fileBytes: number;
  /** Bytes of text shown across the whole change. */
  totalBytes: number;
}

export const FILE_CHANGE_LIMITS: FileChangeLimits = { files: 20, fileBytes: 256 * 1024, totalBytes: 1024 * 1024 };

/** One file's change between two snapshots: both texts, or why they are not shown. */
export type FileChange =
  | { path: string; oldText: string | null; newText: string }
  | { path: string; status: 'added' | 'modified' | 'deleted'; notShown: string };

const TREE_ID = /^[0-9a-f]{40}$/;
/** Each git child's bound: a follower waits on it before it shows the next event. */
const READ_TIMEOUT_MS = 30_000;
const NO_BLOB = /^0+$/;

interface Changed {
  path: string;
  status: 'added' | 'modified' | 'deleted';
  oldBlob: string | undefined;
  newBlob: string | undefined;
  /** A symlink or a submodule entry on either side: not text to show. */
  special: boolean;
}

/**
 * The files that differ between two snapshots of a run's store, as texts an editor can show as a
 * diff. Bounded: at most `files` files, each side at most `fileBytes`, all of it at most
 * `totalBytes`; a larger file, a binary one or a link is named instead. All reading is git's, in
 * child processes of 30 seconds at most each, and only blobs within the limits are read whole.
 */
export async function fileChanges(store: string, before: string, after: string, limits: FileChangeLimits = FILE_CHANGE_LIMITS): Promise<{ changes: FileChange[]; more: number }> {
  if (!TREE_ID.test(before) || !TREE_ID.test(after)) throw new Error(`not snapshot ids: ${before}, ${after}`);
  if (before === after) return { changes: [], more: 0 };
  const raw = nulList(await git(['diff-tree', '-r', '-z', '--no-renames', before, after], { store, timeoutMs: READ_TIMEOUT_MS }));
  const changed: Changed[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    // `:<old mode> <new mode> <old blob> <new blob> <status>`, then the path.
    const [oldMode, newMode, oldBlob, newBlob, status] = raw[i]!.slice(1).split(' ');
    const letter = status?.[0];
    changed.push({
      path: raw[i + 1]!,
      status: letter === 'A' ? 'added' : letter === 'D' ? 'deleted' : 'modified',
      oldBlob: oldBlob && !NO_BLOB.test(oldBlob) ? oldBlob : undefined,
      newBlob: newBlob && !NO_BLOB.test(newBlob) ? newBlob : undefined,
      special: [oldMode, newMode].some((mode) => mode === '120000' || mode === '160000'),
    });
  }
  const shown = changed.slice(0, limits.files);
  const blobs = shown.flatMap((c) => (c.special ? [] : [c.oldBlob, c.newBlob].filter((b): b is string => b !== undefined)));
  const sizes = await blobSizes(store, blobs);
  let budget = limits.totalBytes;
  const wanted = new Set<string>();
  const why = new Map<Changed, string>();
  for (const c of shown) {
    const sides = [c.oldBlob, c.newBlob].filter((b): b is string => b !== undefined);
    const bytes = sides.reduce((sum, b) => sum + (sizes.get(b) ?? 0), 0);
    if (c.special) why.set(c, 'a symbolic link or a nested repository');
    else if (sides.some((b) => (sizes.get(b) ?? 0) > limits.fileBytes)) why.set(c, `larger than ${size(limits.fileBytes)}`);
    else if (bytes > budget) why.set(c, `the change's first ${size(limits.totalBytes)} are shown`);
    else {
      budget -= bytes;
      for (const b of sides) wanted.add(b);
    }
  }
  const texts = await blobTexts(store, [...wanted]);
  const changes: FileChange[] = shown.map((c) => {
    const reason = why.get(c);
    const oldText = c.oldBlob ? texts.get(c.oldBlob) : null;
    const newText = c.newBlob ? texts.get(c.newBlob) : '';
    if (reason === undefined && oldText !== undefined && newText !== undefined) return { path: c.path, oldText, newText };
    return { path: c.path, status: c.status, notShown: reason ?? 'not text' };
  });
  return { changes, more: changed.length - shown.length };
}

const size = (bytes: number) => (bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`);

async function blobSizes(store: string, blobs: string[]): Promise<Map<string, number>> {
  if (blobs.length === 0) return new Map();
  const out = (await git(['cat-file', '--batch-check=%(objectname) %(objectsize)'], { store, input: `${blobs.join('\n')}\n`, timeoutMs: READ_TIMEOUT_MS })).toString('utf8');
  const sizes = new Map<string, number>();
  for (const line of out.split('\n')) {
    const [id, size] = line.split(' ');
    if (id && size && /^\d+$/.test(size)) sizes.set(id, Number(size));
  }
  return sizes;
}

/** The blobs' bytes as UTF-8 text; a blob with a NUL byte or that is not valid UTF-8 is left out (binary). */
async function blobTexts(store: string, blobs: string[]): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  if (blobs.length === 0) return texts;
  const out = await git(['cat-file', '--batch'], { store, input: `${blobs.join('\n')}\n`, timeoutMs: READ_TIMEOUT_MS });
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let at = 0;
  while (at < out.length) {
    const end = out.indexOf(0x0a, at);
    if (end === -1) break;
    const [id, type, size] = out.subarray(at, end).toString('utf8').split(' ');
    if (type !== 'blob' || !id || !size) break;
    const bytes = out.subarray(end + 1, end + 1 + Number(size));
    at = end + 1 + Number(size) + 1;
    if (bytes.includes(0)) continue;
    try {
      texts.set(id, decoder.decode(bytes));
    } catch {
      // Not UTF-8: shown as not text.
    }
  }
  return texts;
}
