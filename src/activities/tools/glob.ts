import fg from 'fast-glob';
import { ToolError, WorkspaceEscapeError } from './tool-error';
import type { ToolArgs } from '../../common/tool-schemas';
import { refuseExpensivePattern } from './brace-size';
import { MAX_GLOB_RESULTS } from './limits';
import { displayPath, resolveInWorkspace } from './workspace';
import path from 'node:path';

export async function glob(root: string, args: ToolArgs<'glob'>): Promise<string> {
  // `..` also counts inside braces and extglobs: `{x,..}/**` is `../**` to fast-glob.
  if (path.isAbsolute(args.pattern) || args.pattern.split(/[\\/{},()|]/).includes('..')) {
    throw new ToolError(`Pattern "${args.pattern}" must stay inside the workspace (no absolute paths, no "..")`);
  }
  refuseExpensivePattern(args.pattern);
  const base = resolveInWorkspace(root, args.path);
  const matches = await fg(args.pattern, {
    cwd: base,
    onlyFiles: true,
    dot: true,
    followSymbolicLinks: false,
    ignore: ['**/.git/**', '**/node_modules/**'],
  });
  // Whatever the pattern's syntax, only files that really are inside the workspace are listed:
  // a symlinked directory that leads out (`link/*`) is walked by fast-glob, its files are not shown.
  const inside = matches.filter((match) => isReallyInside(root, path.join(base, match)));
  if (inside.length === 0) return `No files matched ${JSON.stringify(args.pattern)} in ${displayPath(root, base) === '.' ? 'the workspace' : displayPath(root, base)} (.git and node_modules are not searched).`;
  const shown = inside
    .map((match) => displayPath(root, path.join(base, match)))
    .sort()
    .slice(0, MAX_GLOB_RESULTS);
  const more = inside.length > shown.length ? `\n[${inside.length - shown.length} more files not shown]` : '';
  return shown.join('\n') + more;
}

function isReallyInside(root: string, file: string): boolean {
  try {
    resolveInWorkspace(root, path.relative(root, file));
    return true;
  } catch (err) {
    if (err instanceof WorkspaceEscapeError) return false;
    throw err;
  }
}
