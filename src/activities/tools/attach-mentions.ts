import type { AttachRequest, AttachResult, Attachment } from '../../common/attachments';
import { escapeName } from '../environment/list-workspace';
import { FileNotFoundError, IsADirectoryError, NotADirectoryError } from './fs-errors';
import { readFile } from './read-file';
import { openInWorkspace } from './safe-open';
import { readDirectoryAt } from './safe-walk';
import { workspaceRoot } from './workspace';
import { importCandidates } from './attach-imports';
import { createPolicy } from '../../loop/permissions';
import { runGuard } from '../../loop/run-guard';
import { canonicalPath } from '../../loop/workspace-path';

/** A directory mention lists this many entries at most. */
const MAX_LISTED = 200;
/** Paths tried for the imports of one message at most (each import names a few: `./x.js`, `./x.ts`, ...). */
const MAX_IMPORT_READS = 64;
/** The run's guard; `sandbox.writableGit` changes only what a command's question says. */
const guard = runGuard(false);

/**
 * The files and directories a message mentions (src/loop/mentions.ts), read for the message: a
 * file through read_file itself (the same safe open, no symlink out of the workspace, a FIFO refused
 * at once, binary refused, numbered lines, read_file's own caps), then cut to the run's attachment
 * caps; a directory as a one-level listing read through the walk's check. Runs once per message:
 * its result is in the history, and a replay never reads the workspace again.
 */
export async function attachMentions(request: AttachRequest): Promise<AttachResult> {
  const root = workspaceRoot(request.workspace);
  const { maxFiles, maxFileChars, maxTotalChars } = request.limits;
  const result: AttachResult = { attachments: [], skipped: [] };
  let left = maxTotalChars;
  for (const mention of request.mentions) {
    const skip = (reason: string) => {
      if (mention.explicit) result.skipped.push({ path: mention.path, reason });
    };
    if (result.attachments.length >= maxFiles) {
      skip(`not attached: over the run's cap of ${maxFiles} attached files`);
      continue;
    }
    if (left <= 0) {
      skip(`not attached: the run's cap of ${maxTotalChars} attached characters is used up`);
      continue;
    }
    try {
      const read = await readMention(root, mention.path);
      const cut = cutToCap(read.text, Math.min(maxFileChars, left), mention.path);
      const attachment: Attachment = { path: mention.path, kind: read.kind, chars: cut.text.length, text: cut.text, ...(cut.truncated ? { truncated: true } : {}) };
      result.attachments.push(attachment);
      left -= attachment.chars;
    } catch (err) {
      // A plain path (no `@`) that is not there was only a word that looked like one.
      if (!mention.explicit && (err instanceof FileNotFoundError || err instanceof NotADirectoryError)) continue;
      skip((err as Error).message);
    }
  }
  if (request.imports) await attachImports(root, request, result, left);
  return result;
}

/**
 * After the mentioned files, the local files they import (one step, not the imports' imports),
 * within what the caps leave: each path first through the run's guard as a read_file call would
 * go (its deny rules, the settings files), and only one it allows outright is read. An import
 * that names no file here, or that the guard stops, is passed over in silence.
 */
async function attachImports(root: string, request: AttachRequest, result: AttachResult, room: number): Promise<void> {
  const policy = createPolicy(request.imports!.mode, { deny: request.imports!.deny ?? [] });
  const { maxFiles, maxFileChars } = request.limits;
  const taken = new Set(result.attachments.map((a) => canonicalPath(a.path)));
  let left = room;
  let reads = 0;
  for (const attached of [...result.attachments]) {
    if (attached.kind !== 'file') continue;
    for (const candidates of importCandidates(canonicalPath(attached.path), attached.text)) {
      if (result.attachments.length >= maxFiles || left <= 0 || reads >= MAX_IMPORT_READS) return;
      if (candidates.some((candidate) => taken.has(candidate))) continue;
      for (const candidate of candidates) {
        if (guard(policy, 'read_file', { file_path: candidate }).behavior !== 'allow') continue;
        if (++reads > MAX_IMPORT_READS) return;
        const read = await readFile(root, { file_path: candidate, offset: 0 }).catch((err: unknown) => {
          if (err instanceof FileNotFoundError || err instanceof NotADirectoryError || err instanceof IsADirectoryError) return undefined;
          return null;
        });
        if (read === undefined) continue;
        if (read !== null) {
          const cut = cutToCap(read, Math.min(maxFileChars, left), candidate);
          result.attachments.push({ path: candidate, kind: 'file', chars: cut.text.length, text: cut.text, importedBy: attached.path, ...(cut.truncated ? { truncated: true } : {}) });
          left -= cut.text.length;
          taken.add(candidate);
        }
        break;
      }
    }
  }
}

async function readMention(root: string, mentioned: string): Promise<{ kind: Attachment['kind']; text: string }> {
  const file = mentioned.endsWith('/') ? undefined : mentioned;
  if (file !== undefined) {
    try {
      return { kind: 'file', text: await readFile(root, { file_path: file, offset: 0 }) };
    } catch (err) {
      if (!(err instanceof IsADirectoryError)) throw err;
    }
  }
  return { kind: 'listing', text: await listDirectory(root, mentioned) };
}

/** One level of a directory: `name/` for a directory, `name@` for a link (never followed), other kinds said. */
async function listDirectory(root: string, mentioned: string): Promise<string> {
  const opened = await openInWorkspace(root, mentioned.replace(/\/+$/, '') || '.', 'read');
  const { realPath, stats } = opened;
  await opened.handle.close();
  if (!stats.isDirectory()) throw new NotADirectoryError(`Not a directory: ${mentioned}`);
  const read = await readDirectoryAt(realPath, { max: MAX_LISTED });
  if (!read) throw new NotADirectoryError(`${mentioned} is not the directory it was`);
  const names = read.entries
    .map((entry) => `${escapeName(entry.name)}${entry.kind === 'dir' ? '/' : entry.kind === 'link' ? '@' : entry.kind === 'special' ? ' (not a regular file)' : ''}`)
    .sort();
  const more = read.more ? `\n[more than ${MAX_LISTED} entries: use glob]` : '';
  return names.length ? `${names.join('\n')}${more}` : '[empty directory]';
}

/** Whole lines up to `cap` characters, ending with where read_file reads on. */
function cutToCap(text: string, cap: number, mentioned: string): { text: string; truncated: boolean } {
  if (text.length <= cap) return { text, truncated: false };
  const note = (line: number) => `\n[attachment cut after line ${line}: read ${mentioned} with read_file offset=${line} for the rest]`;
  const room = Math.max(0, cap - note(999_999).length);
  const end = text.lastIndexOf('\n', room);
  const kept = end > 0 ? text.slice(0, end) : text.slice(0, room);
  const last = /(?:^|\n)(\d+): [^\n]*$/.exec(kept);
  const line = last ? Number(last[1]) : 0;
  return { text: `${kept}${note(line)}`, truncated: true };
}
