import path from 'node:path';
import picomatch from 'picomatch';
import { ToolError } from './tool-error';
import type { ToolArgs } from '../../common/tool-schemas';
import { refuseExpensivePattern } from './brace-size';
import { FileNotFoundError, NotADirectoryError } from './fs-errors';
import { MAX_GLOB_RESULTS } from './limits';
import { openInWorkspace } from './safe-open';
import { NOT_WALKED, specialNote, walkFiles } from './safe-walk';
import { displayPath, resolveInWorkspace } from './workspace';

/**
 * Files matching a pattern, from a walk of our own (safe-walk.ts) rather than fast-glob's: fast-glob
 * re-resolves each directory by its path, so a folder flipped into a link to a host folder had the
 * host folder's names listed. The pattern's static part (`src/` of `src/**\/*.ts`) is opened like
 * a file tool's path (a link inside the workspace is followed, one out of it is refused), and no
 * link is followed below it.
 */
export async function glob(root: string, args: ToolArgs<'glob'>): Promise<string> {
  // `..` also counts inside braces and extglobs: `{x,..}/**` is `../**`.
  if (path.isAbsolute(args.pattern) || args.pattern.split(/[\\/{},()|]/).includes('..')) {
    throw new ToolError(`Pattern "${args.pattern}" must stay inside the workspace (no absolute paths, no "..")`);
  }
  refuseExpensivePattern(args.pattern);
  const base = resolveInWorkspace(root, args.path);
  const shownBase = displayPath(root, base);
  const none = `No files matched ${JSON.stringify(args.pattern)} in ${shownBase === '.' ? 'the workspace' : shownBase} (.git and node_modules are not searched).`;
  const scanned = picomatch.scan(args.pattern);
  const staticDir = scanned.isGlob ? scanned.base : path.posix.dirname(scanned.base);
  const prefix = staticDir === '.' ? '' : staticDir;
  const start = await realDirectory(root, path.join(args.path, prefix));
  if (!start) return none;
  const rest = scanned.isGlob ? scanned.glob : path.posix.basename(scanned.base);
  const maxDepth = rest.includes('**') ? Infinity : rest.split('/').length;
  const matches = picomatch(args.pattern, { dot: true });
  const walk = await walkFiles(start, { maxDepth });
  const inside = walk.files
    .map((file) => (prefix ? `${prefix}/${file.relative}` : file.relative))
    .filter((relative) => matches(relative) && !relative.split('/').some((part) => NOT_WALKED.has(part)));
  const note = specialNote(walk.special.map((name) => displayPath(root, path.join(base, prefix, name))));
  if (inside.length === 0) return note ? `${none}\n${note}` : none;
  const shown = inside
    .map((match) => displayPath(root, path.join(base, match)))
    .sort()
    .slice(0, MAX_GLOB_RESULTS);
  // The count, said: a small model asked how many files match miscounts a list of them.
  const count =
    inside.length > shown.length
      ? `\n[${inside.length} files matched; ${inside.length - shown.length} more not shown]`
      : inside.length > 1
        ? `\n[${inside.length} files matched]`
        : '';
  return shown.join('\n') + count + (note ? `\n${note}` : '');
}

/** Where a workspace directory really is, opened as the file tools open a path; undefined when it is not a directory there. */
async function realDirectory(root: string, requested: string): Promise<string | undefined> {
  let opened;
  try {
    opened = await openInWorkspace(root, requested || '.', 'read');
  } catch (err) {
    if (err instanceof FileNotFoundError || err instanceof NotADirectoryError || (err as Error).name === 'WorkspaceEscapeError') return undefined;
    throw err;
  }
  opened.handle.closeSoon();
  return opened.stats.isDirectory() ? opened.realPath : undefined;
}
