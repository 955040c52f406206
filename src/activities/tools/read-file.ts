import { open, stat } from 'node:fs/promises';
import { ToolError } from '../../common/errors';
import type { ToolArgs } from '../../common/tool-schemas';
import { explainFsError, IsADirectoryError } from './fs-errors';
import { capOutput, MAX_READ_FILE_BYTES } from './limits';
import { resolveInWorkspace } from './workspace';

export async function readFile(root: string, args: ToolArgs<'read_file'>): Promise<string> {
  const file = resolveInWorkspace(root, args.file_path);
  try {
    const info = await stat(file);
    if (info.isDirectory()) throw new IsADirectoryError(`Is a directory: ${args.file_path}`);
    const handle = await open(file, 'r');
    try {
      const size = Math.min(info.size, MAX_READ_FILE_BYTES);
      const buffer = Buffer.alloc(size);
      await handle.read(buffer, 0, size, 0);
      if (buffer.subarray(0, 8192).includes(0)) throw new ToolError(`Binary file, not shown: ${args.file_path}`);
      const lines = buffer.toString('utf8').split('\n');
      if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
      const end = args.limit === undefined ? lines.length : args.offset + args.limit;
      const numbered = lines.slice(args.offset, end).map((line, i) => `${args.offset + i + 1}: ${line}`);
      const note = info.size > MAX_READ_FILE_BYTES ? `\n[file truncated: only the first ${MAX_READ_FILE_BYTES} bytes read]` : '';
      return capOutput(numbered.join('\n')) + note;
    } finally {
      await handle.close();
    }
  } catch (err) {
    throw explainFsError(err, args.file_path);
  }
}
