import { ToolError } from './tool-error';
import type { ToolArgs } from '../../common/tool-schemas';
import { IsADirectoryError } from './fs-errors';
import { MAX_READ_FILE_BYTES, MAX_TOOL_OUTPUT_CHARS } from './limits';
import { readPrefix } from './file-io';
import { openInWorkspace } from './safe-open';

/**
 * Numbered lines (`1: ...`), whole lines up to the output cap. Whenever less than the rest of the
 * file comes back, the result ends with which lines these are, of how many, and the offset to
 * read on from, so that a model can page through a long file instead of guessing.
 */
export async function readFile(root: string, args: ToolArgs<'read_file'>): Promise<string> {
  const { handle, stats } = await openInWorkspace(root, args.file_path, 'read');
  try {
    if (stats.isDirectory()) throw new IsADirectoryError(`Is a directory: ${args.file_path}`);
    const buffer = await readPrefix(handle, Math.min(stats.size, MAX_READ_FILE_BYTES));
    if (buffer.subarray(0, 8192).includes(0)) throw new ToolError(`Binary file, not shown: ${args.file_path}`);
    const partial = stats.size > MAX_READ_FILE_BYTES;
    const lines = buffer.toString('utf8').split('\n');
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    const total = partial ? `at least ${lines.length}` : `${lines.length}`;
    const partialNote = partial ? `\n[file truncated: only the first ${MAX_READ_FILE_BYTES} bytes read]` : '';
    if (stats.size === 0) return '[empty file]';
    if (args.offset >= lines.length) return `[offset ${args.offset} is past the end: ${args.file_path} has ${total} lines]${partialNote}`;
    const end = Math.min(lines.length, args.limit === undefined ? lines.length : args.offset + args.limit);
    const shown: string[] = [];
    let chars = 0;
    let cutLine = '';
    for (let at = args.offset; at < end; at++) {
      const line = `${at + 1}: ${lines[at]}`;
      if (chars + line.length + 1 > MAX_TOOL_OUTPUT_CHARS) {
        // One line longer than the whole cap (minified code): its start, said to be cut.
        if (shown.length === 0) {
          shown.push(line.slice(0, MAX_TOOL_OUTPUT_CHARS));
          cutLine = ` (line ${at + 1} cut: it has ${(lines[at] ?? '').length} characters)`;
        }
        break;
      }
      shown.push(line);
      chars += line.length + 1;
    }
    const last = args.offset + shown.length;
    const whole = last >= lines.length && !partial && !cutLine;
    if (whole) return shown.join('\n');
    const more = last < lines.length ? `; read on with offset=${last}` : '';
    return `${shown.join('\n')}\n[lines ${args.offset + 1}-${last} of ${total}${cutLine}${more}]${partialNote}`;
  } finally {
    handle.closeSoon();
  }
}
