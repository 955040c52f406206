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
  maxMatches: number;
  skipped: number;
  bytes: number;
  lastYield: number;
}

/** How much one search may find and read: the grep tool's own limits unless a caller asks for less. */
export interface GrepLimits {
  maxMatches: number;
  maxBytes: number;
}

const TOOL_LIMITS: GrepLimits = { maxMatches: MAX_GREP_MATCHES, maxBytes: MAX_GREP_TOTAL_BYTES };

/** What a search found: `path:line: text` lines, and notes on where it stopped or what it skipped. */
export interface Found {
  lines: string[];
  notes: string[];
  shownBase: string;
}

export async function grep(root: string, args: ToolArgs<'grep'>): Promise<string> {
  const { lines, notes, shownBase } = await searchFiles(root, args, TOOL_LIMITS).catch((err: unknown) => {
    // `*.py` is not a regular expression at all.
    throw err instanceof ToolError && nameSearchHint(args) ? new ToolError(`${err.message}.${nameSearchHint(args)}`) : err;
  });
  if (lines.length === 0) return [`No matches found for ${JSON.stringify(args.pattern)} in ${shownBase === '.' ? 'the workspace' : shownBase}${args.include ? ` (files named ${args.include})` : ''}.${nameSearchHint(args)}`, ...notes].join('\n');
  return capOutput([...lines, ...notes].join('\n'));
}

/** grep's search, through the same safe opens and walk, within `limits`. */
export async function searchFiles(root: string, args: ToolArgs<'grep'>, limits: GrepLimits): Promise<Found> {
  const pattern = compileGrepPattern(args.pattern);
  if (args.include) refuseExpensivePattern(args.include);
  const included = args.include ? picomatch(args.include, { basename: true, dot: true }) : () => true;
  const scan: Scan = { lines: [], maxMatches: limits.maxMatches, skipped: 0, bytes: 0, lastYield: performance.now() };
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
      if (scan.lines.length >= scan.maxMatches) break;
      if (scan.bytes >= limits.maxBytes) {
        stoppedEarly = true;
        break;
      }
    }
  }
  const notes: string[] = [];
  if (scan.lines.length >= scan.maxMatches) notes.push(`[stopped at ${scan.maxMatches} matches]`);
  if (stoppedEarly) notes.push(`[stopped after reading ${limits.maxBytes / (1024 * 1024)} MB: narrow path or include]`);
  if (scan.skipped) notes.push(`[${scan.skipped} files over 1 MB skipped]`);
  const skippedSpecial = specialNote(special);
  if (skippedSpecial) notes.push(skippedSpecial);
  return { lines: scan.lines, notes, shownBase };
}

/** A pattern that is a file name's ending (`.*\.js$`, `*.py`, `\.md`): what a model writes when it means files by name. */
const FILE_NAME_PATTERN = /^(?:\.\*|\*)?\\?\.([A-Za-z0-9]{1,10})\$?$/;

/**
 * Asked how many .js files a folder holds, the 1.5B model grepped the contents for `.*\.js$`,
 * found nothing and answered 0 (EVALS.md). A miss with such a pattern names the glob that lists them.
 */
function nameSearchHint(args: ToolArgs<'grep'>): string {
  const extension = FILE_NAME_PATTERN.exec(args.pattern)?.[1];
  if (extension === undefined) return '';
  const base = args.path.replace(/\/+$/, '');
  const pattern = `${base === '' || base === '.' ? '' : `${base}/`}**/*.${extension}`;
  return ` grep searches the text inside files; to list files by name, call glob with pattern ${JSON.stringify(pattern)}.`;
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
  for (let i = 0; i < fileLines.length && scan.lines.length < scan.maxMatches; i++) {
    const line = fileLines[i] as string;
    if (pattern.test(line)) scan.lines.push(`${shown}:${i + 1}: ${line}`);
    // RE2 is linear, but a megabyte of lines is still work: hand the event loop back now and then.
    if (performance.now() - scan.lastYield > GREP_YIELD_EVERY_MS) {
      await nextTurn();
      scan.lastYield = performance.now();
    }
  }
}
