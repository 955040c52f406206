import { ToolError } from './tool-error';
import type { ToolArgs } from '../../common/tool-schemas';
import { readPrefix, replaceContent } from './file-io';
import { FileTooLargeError } from './fs-errors';
import { MAX_EDIT_FILE_BYTES, MAX_EDIT_TEXT_CHARS } from './limits';
import { openInWorkspace } from './safe-open';

export async function editFile(root: string, args: ToolArgs<'edit_file'>): Promise<string> {
  for (const [name, text] of [['old_text', args.old_text], ['new_text', args.new_text]] as const) {
    if (text.length > MAX_EDIT_TEXT_CHARS) {
      throw new ToolError(`${name} is too long (${text.length} characters; the limit is ${MAX_EDIT_TEXT_CHARS}): use write_file instead`);
    }
  }
  // One handle for the read and the write: the file edited is the file that was read and checked.
  const { handle, stats } = await openInWorkspace(root, args.file_path, 'edit');
  try {
    if (stats.size > MAX_EDIT_FILE_BYTES) {
      throw new FileTooLargeError(
        `File is too large to edit: ${args.file_path} has ${stats.size} bytes; the limit is ${MAX_EDIT_FILE_BYTES} bytes`,
      );
    }
    const text = (await readPrefix(handle, stats.size)).toString('utf8');
    const at = text.indexOf(args.old_text);
    if (at < 0) throw new ToolError('old_text not found in file');
    const edited = text.slice(0, at) + args.new_text + text.slice(at + args.old_text.length);
    await replaceContent(handle, Buffer.from(edited, 'utf8'));
  } finally {
    await handle.close();
  }
  return `Edited ${args.file_path}`;
}
