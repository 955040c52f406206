import { readFile, writeFile } from 'node:fs/promises';
import { ToolError } from '../../common/errors';
import type { ToolArgs } from '../../common/tool-schemas';
import { explainFsError } from './fs-errors';
import { resolveInWorkspace } from './workspace';

export async function editFile(root: string, args: ToolArgs<'edit_file'>): Promise<string> {
  const file = resolveInWorkspace(root, args.file_path);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw explainFsError(err, args.file_path);
  }
  const at = text.indexOf(args.old_text);
  if (at < 0) throw new ToolError('old_text not found in file');
  await writeFile(file, text.slice(0, at) + args.new_text + text.slice(at + args.old_text.length), 'utf8');
  return `Edited ${args.file_path}`;
}
