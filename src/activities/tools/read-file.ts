import { ToolError } from './tool-error';
import type { ToolArgs } from '../../common/tool-schemas';
import { IsADirectoryError } from './fs-errors';
import { capOutput, MAX_READ_FILE_BYTES } from './limits';
import { readPrefix } from './file-io';
import { openInWorkspace } from './safe-open';

export async function readFile(root: string, args: ToolArgs<'read_file'>): Promise<string> {
  const { handle, stats } = await openInWorkspace(root, args.file_path, 'read');
  try {
    if (stats.isDirectory()) throw new IsADirectoryError(`Is a directory: ${args.file_path}`);
    const buffer = await readPrefix(handle, Math.min(stats.size, MAX_READ_FILE_BYTES));
    if (buffer.subarray(0, 8192).includes(0)) throw new ToolError(`Binary file, not shown: ${args.file_path}`);
    const lines = buffer.toString('utf8').split('\n');
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    const end = args.limit === undefined ? lines.length : args.offset + args.limit;
    const numbered = lines.slice(args.offset, end).map((line, i) => `${args.offset + i + 1}: ${line}`);
    const note = stats.size > MAX_READ_FILE_BYTES ? `\n[file truncated: only the first ${MAX_READ_FILE_BYTES} bytes read]` : '';
    return capOutput(numbered.join('\n')) + note;
  } finally {
    await handle.close();
  }
}
