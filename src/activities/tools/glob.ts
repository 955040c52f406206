import fg from 'fast-glob';
import { ToolError } from '../../common/errors';
import type { ToolArgs } from '../../common/tool-schemas';
import { MAX_GLOB_RESULTS } from './limits';
import { displayPath, resolveInWorkspace } from './workspace';
import path from 'node:path';

export async function glob(root: string, args: ToolArgs<'glob'>): Promise<string> {
  if (path.isAbsolute(args.pattern) || args.pattern.split(/[\\/]/).includes('..')) {
    throw new ToolError(`Pattern "${args.pattern}" must stay inside the workspace (no absolute paths, no "..")`);
  }
  const base = resolveInWorkspace(root, args.path);
  const matches = await fg(args.pattern, {
    cwd: base,
    onlyFiles: true,
    dot: true,
    followSymbolicLinks: false,
    ignore: ['**/.git/**', '**/node_modules/**'],
  });
  if (matches.length === 0) return 'No files matched.';
  const shown = matches
    .map((match) => displayPath(root, path.join(base, match)))
    .sort()
    .slice(0, MAX_GLOB_RESULTS);
  const more = matches.length > shown.length ? `\n[${matches.length - shown.length} more files not shown]` : '';
  return shown.join('\n') + more;
}
