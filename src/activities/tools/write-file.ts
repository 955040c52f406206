import { mkdir, writeFile as fsWriteFile } from 'node:fs/promises';
import path from 'node:path';
import type { ToolArgs } from '../../common/tool-schemas';
import { explainFsError } from './fs-errors';
import { resolveInWorkspace } from './workspace';

export async function writeFile(root: string, args: ToolArgs<'write_file'>): Promise<string> {
  const file = resolveInWorkspace(root, args.file_path);
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await fsWriteFile(file, args.content, 'utf8');
  } catch (err) {
    throw explainFsError(err, args.file_path);
  }
  return `Wrote ${Buffer.byteLength(args.content, 'utf8')} bytes to ${args.file_path}`;
}
