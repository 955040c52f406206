import { ToolError } from './tool-error';
import type { ToolArgs } from '../../common/tool-schemas';
import { readPrefix, replaceContent } from './file-io';
import { describeMiss } from './edit-miss';
import { FileNotFoundError, FileTooLargeError } from './fs-errors';
import { MAX_EDIT_FILE_BYTES, MAX_EDIT_TEXT_CHARS } from './limits';
import { closeOpened, openInWorkspace } from './safe-open';

/** `read`: whether the run read (or wrote) this file before; false adds that to a miss's explanation. */
export async function editFile(root: string, args: ToolArgs<'edit_file'>, read?: boolean): Promise<string> {
  for (const [name, text] of [['old_text', args.old_text], ['new_text', args.new_text]] as const) {
    if (text.length > MAX_EDIT_TEXT_CHARS) {
      throw new ToolError(`${name} is too long (${text.length} characters; the limit is ${MAX_EDIT_TEXT_CHARS}): use write_file instead`);
    }
  }
  // One walk for the read and the write: the file edited is the file that was read and checked.
  const opened = await openInWorkspace(root, args.file_path, 'edit').catch((err: unknown) => {
    if (err instanceof FileNotFoundError) throw new FileNotFoundError(`${err.message} (edit_file changes a file that exists: find the path with glob, or create the file with write_file)`);
    throw err;
  });
  const { handle, stats } = opened;
  try {
    if (stats.size > MAX_EDIT_FILE_BYTES) {
      throw new FileTooLargeError(
        `File is too large to edit: ${args.file_path} has ${stats.size} bytes; the limit is ${MAX_EDIT_FILE_BYTES} bytes`,
      );
    }
    const text = (await readPrefix(handle, stats.size)).toString('utf8');
    const at = text.indexOf(args.old_text);
    if (at < 0) throw new ToolError(describeMiss(text, args.old_text, { filePath: args.file_path, ...(read !== undefined ? { read } : {}) }));
    const edited = text.slice(0, at) + args.new_text + text.slice(at + args.old_text.length);
    await replaceContent(root, opened, Buffer.from(edited, 'utf8'), args.file_path);
  } finally {
    await closeOpened(opened);
  }
  return `Edited ${args.file_path}`;
}
