import { constants, openSync } from 'node:fs';
import type { ToolArgs } from '../../common/tool-schemas';
import { readPrefix, replaceContent } from './file-io';
import { closeOpened, openInWorkspace, type OpenedFile } from './safe-open';
import { NAMES_CHECKED_BYTES, droppedNames, droppedNamesNote, lostNames, namesChecked, type DroppedNames } from './dropped-names';
import { numberedRegion, withRegion } from './edited-region';
import { jsonNote } from './json-note';
import { nameUsersNote } from './name-users';
import { UNNUMBERED_NOTE, unnumberedPaste } from './numbered-paste';
import { WorkspaceFile } from './workspace-file';

/** Files up to this size are compared with what a write would put there, and checked for what it drops. */
const COMPARED_BYTES = NAMES_CHECKED_BYTES;

/**
 * `searchUsers`: the run's guard lets a grep of the workspace run unasked, so the lines that still
 * use a name this write dropped are searched for and named (name-users.ts).
 */
export async function writeFile(root: string, args: ToolArgs<'write_file'>, searchUsers = false): Promise<string> {
  const unnumbered = unnumberedPaste(args.content);
  const text = unnumbered ?? args.content;
  const content = Buffer.from(text, 'utf8');
  const opened = await openInWorkspace(root, args.file_path, 'write');
  let dropped: DroppedNames | undefined;
  try {
    // Read only where it can matter: the same size (a write that changes nothing), or a file whose names are checked.
    const before = opened.stats.size === content.length || namesChecked(args.file_path) ? await previousContent(opened) : undefined;
    // A small model that has just written a file often writes it again, as it was shown: say so
    // instead of showing it once more, which invites yet another copy.
    if (before !== undefined && before.length > 0 && before.equals(content)) {
      return `${args.file_path} already holds exactly this content (${content.length} bytes): nothing was written. Run its tests or examples to check it, or give your answer.`;
    }
    await replaceContent(root, opened, content, args.file_path);
    dropped = before === undefined ? undefined : droppedNames(args.file_path, before.toString('utf8'), text);
  } finally {
    await closeOpened(opened);
  }
  // The whole file numbered when small, so that the model's next edit copies lines as they are.
  const done = `Wrote ${content.length} bytes to ${args.file_path}${unnumbered === undefined ? '' : ` ${UNNUMBERED_NOTE}`}`;
  const shown = withRegion(done, numberedRegion(args.file_path, text));
  const users = dropped && searchUsers ? await nameUsersNote(root, lostNames(dropped)) : undefined;
  const notes = [dropped && droppedNamesNote(dropped), users, content.length <= COMPARED_BYTES ? jsonNote(args.file_path, text) : undefined].filter((note) => note !== undefined);
  return [shown, ...notes].join('\n\n');
}

/** What the file held before this write, read through its own descriptor (never its name again); undefined when it is larger than compared. */
async function previousContent(opened: OpenedFile): Promise<Buffer | undefined> {
  if (opened.stats.size === 0) return Buffer.alloc(0);
  if (opened.stats.size > COMPARED_BYTES) return undefined;
  const reader = new WorkspaceFile(openSync(`/proc/self/fd/${opened.handle.fd}`, constants.O_RDONLY | constants.O_NOCTTY));
  try {
    return await readPrefix(reader, opened.stats.size);
  } finally {
    await reader.close();
  }
}
