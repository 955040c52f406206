import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import picomatch from 'picomatch';
import { ToolError } from '../../common/errors';
import type { ToolArgs } from '../../common/tool-schemas';
import { capOutput, MAX_GREP_FILE_BYTES, MAX_GREP_MATCHES } from './limits';
import { displayPath, resolveInWorkspace } from './workspace';

export async function grep(root: string, args: ToolArgs<'grep'>): Promise<string> {
  let regex: RegExp;
  try {
    regex = new RegExp(args.pattern);
  } catch (err) {
    throw new ToolError(`Invalid regular expression: ${(err as Error).message}`);
  }
  const base = resolveInWorkspace(root, args.path);
  const files = await filesUnder(base, args.path);
  const included = args.include ? picomatch(args.include, { basename: true, dot: true }) : () => true;
  const lines: string[] = [];
  let skipped = 0;
  for (const file of files) {
    if (!included(path.basename(file))) continue;
    const info = await stat(file);
    if (info.size > MAX_GREP_FILE_BYTES) {
      skipped += 1;
      continue;
    }
    const buffer = await readFile(file);
    if (buffer.subarray(0, 8192).includes(0)) continue;
    const fileLines = buffer.toString('utf8').split('\n');
    for (let i = 0; i < fileLines.length && lines.length < MAX_GREP_MATCHES; i++) {
      const line = fileLines[i] as string;
      if (regex.test(line)) lines.push(`${displayPath(root, file)}:${i + 1}: ${line}`);
    }
    if (lines.length >= MAX_GREP_MATCHES) break;
  }
  const notes: string[] = [];
  if (lines.length >= MAX_GREP_MATCHES) notes.push(`[stopped at ${MAX_GREP_MATCHES} matches]`);
  if (skipped) notes.push(`[${skipped} files over 1 MB skipped]`);
  if (lines.length === 0) return ['No matches found.', ...notes].join('\n');
  return capOutput([...lines, ...notes].join('\n'));
}

async function filesUnder(base: string, shown: string): Promise<string[]> {
  const info = await stat(base).catch(() => {
    throw new ToolError(`No such file or directory: ${shown}`);
  });
  if (info.isFile()) return [base];
  const found = await fg('**/*', {
    cwd: base,
    onlyFiles: true,
    dot: true,
    absolute: true,
    followSymbolicLinks: false,
    ignore: ['**/.git/**', '**/node_modules/**'],
  });
  return found.sort();
}
