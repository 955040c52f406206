import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import picomatch from 'picomatch';
import { ToolError } from './tool-error';
import type { ToolArgs } from '../../common/tool-schemas';
import { refuseExpensivePattern } from './brace-size';
import { readPrefix } from './file-io';
import { FileNotFoundError } from './fs-errors';
import {
  capOutput,
  GREP_YIELD_EVERY_MS,
  MAX_GREP_FILE_BYTES,
  MAX_GREP_MATCHES,
  MAX_GREP_TOTAL_BYTES,
} from './limits';
import { compileGrepPattern, type LinePattern } from './re2-pattern';
import { openFoundFile, openInWorkspace, type OpenedFile } from './safe-open';
import { specialNote, walkFiles } from './safe-walk';
import { displayPath, resolveInWorkspace } from './workspace';

interface Scan {
  lines: string[];
  skipped: number;
  bytes: number;
  lastYield: number;
}

export async function grep(root: string, args: ToolArgs<'grep'>): Promise<string> {
  const pattern = compileGrepPattern(args.pattern);
  if (args.include) refuseExpensivePattern(args.include);
  const included = args.include ? picomatch(args.include, { basename: true, dot: true }) : () => true;
  const scan: Scan = { lines: [], skipped: 0, bytes: 0, lastYield: performance.now() };
  const base = await openInWorkspace(root, args.path, 'read').catch((err: unknown) => {
    throw err instanceof FileNotFoundError ? new ToolError(`No such file or directory: ${args.path}`) : err;
  });
  // Shown as asked (`link-in/app.ts`), walked where it really is.
  const shownBase = displayPath(root, resolveInWorkspace(root, args.path));
  let stoppedEarly = false;
  let special: string[] = [];
  if (base.stats.isFile()) {
    if (included(path.basename(shownBase))) await searchOpened(base, shownBase, pattern, scan);
    else await base.handle.close();
  } else {
    await base.handle.close();
    const walk = await walkFiles(base.realPath);
    special = walk.special.filter((name) => included(path.basename(name))).map((name) => path.join(shownBase, name));
    for (const found of walk.files) {
      const file = path.join(base.realPath, found.relative);
      if (!included(path.basename(file))) continue;
      const opened = await openFoundFile(root, file).catch(() => undefined); // vanished, swapped or not regular
      const shown = path.join(shownBase, path.relative(base.realPath, file));
      if (opened) await searchOpened(opened, shown, pattern, scan);
      if (scan.lines.length >= MAX_GREP_MATCHES) break;
      if (scan.bytes >= MAX_GREP_TOTAL_BYTES) {
        stoppedEarly = true;
        break;
      }
    }
  }
  const notes: string[] = [];
  if (scan.lines.length >= MAX_GREP_MATCHES) notes.push(`[stopped at ${MAX_GREP_MATCHES} matches]`);
  if (stoppedEarly) notes.push(`[stopped after reading ${MAX_GREP_TOTAL_BYTES / (1024 * 1024)} MB: narrow path or include]`);
  if (scan.skipped) notes.push(`[${scan.skipped} files over 1 MB skipped]`);
  const skippedSpecial = specialNote(special);
  if (skippedSpecial) notes.push(skippedSpecial);
  if (scan.lines.length === 0) return [`No matches found for ${JSON.stringify(args.pattern)} in ${shownBase === '.' ? 'the workspace' : shownBase}${args.include ? ` (files named ${args.include})` : ''}.`, ...notes].join('\n');
  return capOutput([...scan.lines, ...notes].join('\n'));
}

/** Reads through the handle that was checked; closes it. */
async function searchOpened(opened: OpenedFile, shown: string, pattern: LinePattern, scan: Scan): Promise<void> {
  let buffer: Buffer;
  try {
    if (opened.stats.size > MAX_GREP_FILE_BYTES) {
      scan.skipped += 1;
      return;
    }
    buffer = await readPrefix(opened.handle, opened.stats.size);
  } finally {
    await opened.handle.close();
  }
  scan.bytes += buffer.length;
  if (buffer.subarray(0, 8192).includes(0)) return;
  const fileLines = buffer.toString('utf8').split('\n');
  for (let i = 0; i < fileLines.length && scan.lines.length < MAX_GREP_MATCHES; i++) {
    const line = fileLines[i] as string;
    if (pattern.test(line)) scan.lines.push(`${shown}:${i + 1}: ${line}`);
    // RE2 is linear, but a megabyte of lines is still work: hand the event loop back now and then.
    if (performance.now() - scan.lastYield > GREP_YIELD_EVERY_MS) {
      await nextTurn();
      scan.lastYield = performance.now();
    }
  }
}
