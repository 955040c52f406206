import { NAMES_CHECKED_BYTES, droppedNames, droppedNamesNote, lostNames, type DroppedNames } from './dropped-names';
import { ToolError } from './tool-error';
import type { ToolArgs } from '../../common/tool-schemas';
import { readPrefix, replaceContent } from './file-io';
import { describeMiss } from './edit-miss';
import { FileNotFoundError, FileTooLargeError } from './fs-errors';
import { MAX_EDIT_FILE_BYTES, MAX_EDIT_TEXT_CHARS } from './limits';
import { closeOpened, openInWorkspace } from './safe-open';
import { editedLines, lineAt, numberedRegion, withRegion } from './edited-region';
import { widenNestedEdit } from './edit-widen';
import { jsonNote } from './json-note';
import { nameUsersNote } from './name-users';
import { UNNUMBERED_NOTE, unnumberedPaste } from './numbered-paste';

/** After the earlier edit the model forgot: why old_text is gone. */
export const CHANGED_BY_EARLIER_EDIT =
  'old_text was in the file before your own earlier edit_file of it in this run, which changed those lines: edit the file as it is now.';

/** Lines named in the note on the occurrences an edit left alone. */
const MAX_NAMED_LINES = 10;

/**
 * A note when old_text is still in the edited file outside the replaced text: edit_file replaces
 * only the first occurrence, and a model renaming a name takes the one edit for all of them.
 * Linear in the file, which MAX_EDIT_FILE_BYTES bounds.
 */
export function otherOccurrences(edited: string, oldText: string, replacedFrom: number, replacedTo: number): string {
  const lines: number[] = [];
  let line = 1;
  let counted = 0;
  for (let at = edited.indexOf(oldText); at >= 0; at = edited.indexOf(oldText, at + oldText.length)) {
    if (at < replacedTo && at + oldText.length > replacedFrom) continue;
    for (let i = edited.indexOf('\n', counted); i >= 0 && i < at; i = edited.indexOf('\n', i + 1)) {
      line++;
      counted = i + 1;
    }
    if (lines.at(-1) !== line) lines.push(line);
  }
  if (lines.length === 0) return '';
  const shown = lines.length > MAX_NAMED_LINES ? `${lines.slice(0, MAX_NAMED_LINES).join(', ')} and ${lines.length - MAX_NAMED_LINES} more` : lines.join(', ');
  return `. old_text is still in the file, on line${lines.length === 1 ? '' : 's'} ${shown}: edit_file replaces only its first occurrence, so edit ${lines.length === 1 ? 'that line too if it should' : 'those lines too if they should'} change`;
}

/** Characters of old_text's first line offered as a grep pattern. */
const MAX_PATTERN_CHARS = 100;

/**
 * An edit that changes nothing. The 1.5B model called edit_file with old_text as new_text to look
 * for a text, five times on the wrong file: the refusal says whether the text is there, shows the
 * lines around it, and names the call that finds which file holds it.
 */
function sameTextMessage(filePath: string, text: string, oldText: string, at: number): string {
  const where = at < 0 ? `old_text is not in ${filePath}` : `old_text is in ${filePath} at line ${lineAt(text, at)}`;
  const line = oldText.split('\n').find((l) => l.trim() !== '')?.trim().slice(0, MAX_PATTERN_CHARS) ?? '';
  const find = line ? ` To find which files hold a text, call grep with pattern ${JSON.stringify(line.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&'))}.` : '';
  // Where the text is, shown as an edit shows its region: the model looking for it gets the lines around it (asked which function throws, the function's name).
  const region = at < 0 ? '' : numberedRegion(filePath, text, editedLines(text, at, oldText));
  return withRegion(`old_text and new_text are the same, so this edit would change nothing: put the changed text in new_text. ${where}.${find}`, region);
}

/**
 * What the workflow knows of the file from the run's conversation, for a miss's explanation:
 * `read`, whether the run read (or wrote, or was shown) it, false adding that the model guessed;
 * `changedByEarlierEdit`, that the run's own earlier edit_file replaced text holding old_text.
 * `searchUsers`: as write_file's, the lines that still use a name the edit dropped, or the old name
 * of an identifier it renamed, are named.
 */
export async function editFile(root: string, args: ToolArgs<'edit_file'>, read?: boolean, changedByEarlierEdit = false, searchUsers = false): Promise<string> {
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
  let dropped: DroppedNames | undefined;
  let notes: Array<string | undefined>;
  let imported = false;
  try {
    if (stats.size > MAX_EDIT_FILE_BYTES) {
      throw new FileTooLargeError(
        `File is too large to edit: ${args.file_path} has ${stats.size} bytes; the limit is ${MAX_EDIT_FILE_BYTES} bytes`,
      );
    }
    const text = (await readPrefix(handle, stats.size)).toString('utf8');
    const at = text.indexOf(args.old_text);
    if (args.old_text === args.new_text) throw new ToolError(sameTextMessage(args.file_path, text, args.old_text, at));
    if (at < 0) {
      const miss = describeMiss(text, args.old_text, { filePath: args.file_path, ...(read !== undefined ? { read } : {}) });
      if (!changedByEarlierEdit) throw new ToolError(miss);
      const [first, ...rest] = miss.split('\n');
      throw new ToolError([first, CHANGED_BY_EARLIER_EDIT, ...rest].join('\n'));
    }
    const unnumbered = unnumberedPaste(args.new_text);
    const given = unnumbered ?? args.new_text;
    const widened = widenNestedEdit(text, at, args.old_text, given);
    const [start, end, newText] = widened
      ? [widened.start, widened.end, given.replace(/\n$/, '')]
      : [at, at + args.old_text.length, given];
    const edited = text.slice(0, start) + newText + text.slice(end);
    await replaceContent(root, opened, Buffer.from(edited, 'utf8'), args.file_path);
    const done = [
      widened
        ? `Edited ${args.file_path}: new_text starts with line ${widened.firstLine}, the header of the block old_text is in, so it replaced lines ${widened.firstLine}-${widened.lastLine} instead of nesting a second copy inside them`
        : `Edited ${args.file_path}`,
      ...(unnumbered === undefined ? [] : [UNNUMBERED_NOTE]),
    ].join(' ');
    const others = otherOccurrences(edited, args.old_text, start, start + newText.length);
    const shown = withRegion(done + others, numberedRegion(args.file_path, edited, editedLines(edited, start, newText)));
    const checked = stats.size <= NAMES_CHECKED_BYTES;
    dropped = checked ? droppedNames(args.file_path, text, edited) : undefined;
    imported = importLine(text, at);
    notes = [shown, ...(dropped ? [droppedNamesNote(dropped, 'edit')] : []), ...(checked ? [jsonNote(args.file_path, edited)] : [])];
  } finally {
    await closeOpened(opened);
  }
  // Searched once the edited file is closed: the workspace as this edit left it.
  const users = searchUsers ? await usersNote(root, args, dropped ? lostNames(dropped) : [], imported) : undefined;
  return [...notes, users].filter((note) => note !== undefined).join('\n\n');
}

/**
 * The lines still using what the edit took away: the names it dropped, and the old name of a
 * rename. A name the file defines or imports at the top is the project's, its uses anywhere are
 * named; a local one's, in this file only.
 */
async function usersNote(root: string, args: ToolArgs<'edit_file'>, lost: string[], imported: boolean): Promise<string | undefined> {
  const renamed = renamedName(args.old_text, args.new_text);
  const local = renamed !== undefined && !lost.includes(renamed) && !imported;
  const project = renamed !== undefined && !local ? [...new Set([...lost, renamed])] : lost;
  return (await nameUsersNote(root, project)) ?? (local ? nameUsersNote(root, [renamed], args.file_path) : undefined);
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
/** Words an edit swaps that name no binding (`false` for `true`, `let` for `var`). */
const KEYWORDS = new Set(['true', 'false', 'null', 'undefined', 'None', 'True', 'False', 'var', 'let', 'const', 'function', 'return', 'def', 'class', 'async', 'await', 'this', 'self', 'new', 'in', 'of', 'is', 'and', 'or', 'not']);
/** A top-level import of names: `import ...`, `from x import ...`, `const { a } = require(...)`. */
const IMPORT_LINE = /^(?:import\s|from\s|(?:const|let|var)\s*\{[^}\n]*\}\s*=\s*require\()/;

/**
 * The old name of an edit that replaces one identifier with another: a rename, whose other uses
 * are then named. Renaming a constant, the 1.5B model edited its first use in each file and ran
 * the check, which printed nothing, four times.
 */
function renamedName(oldText: string, newText: string): string | undefined {
  return IDENTIFIER.test(oldText) && IDENTIFIER.test(newText) && !KEYWORDS.has(oldText) && !KEYWORDS.has(newText) ? oldText : undefined;
}

/** Whether the line holding offset `at` of `text` imports names at the top of the file. */
function importLine(text: string, at: number): boolean {
  const start = text.lastIndexOf('\n', at) + 1;
  return IMPORT_LINE.test(text.slice(start, start + 1000));
}
