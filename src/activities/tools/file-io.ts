import { randomBytes } from 'node:crypto';
import { constants, lstatSync, openSync, readlinkSync, renameSync, unlinkSync } from 'node:fs';
import { ToolError } from './tool-error';
import type { OpenedFile } from './safe-open';
import { isInside } from './workspace';
import { WorkspaceFile } from './workspace-file';
import { copyAttributes } from './kept-attributes';

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;

/** Up to `size` bytes from the start; fewer if the file shrank since it was measured. */
export async function readPrefix(handle: Pick<WorkspaceFile, 'read'>, size: number): Promise<Buffer> {
  const buffer = Buffer.alloc(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } = await handle.read(buffer, filled, size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/**
 * Replaces the whole content of a file `openInWorkspace` opened for `write` or `edit`, all at once:
 * the new bytes go to a temporary file in the same directory (opened on the same checked walk),
 * which is renamed over the file's entry. A worker killed at any moment leaves the old content or
 * the new one, never a truncated file; at worst a `.bareagent-*.tmp` file beside it. No fsync: a
 * killed process needs none, and ext4 (auto_da_alloc) writes a file renamed over another before the
 * rename; a sync per write made every rename of the machine wait on the journal (0.6 → 3 ms each).
 * As in the safe open, the calls around the content (create, rename, the checks) are synchronous,
 * and so is writing content of up to 64 KiB (WorkspaceFile).
 *
 * Written in place instead (truncate, then write through the checked handle) when the directory
 * takes no new file but the file is writable, when the file's owner or group could not be kept, or
 * when the file is a mount point.
 */
export async function replaceContent(root: string, opened: OpenedFile, content: Buffer, shownPath: string): Promise<void> {
  const { parent, stats } = opened;
  if (!parent) throw new Error('replaceContent needs a file opened for write or edit');
  const at = (name: string) => `/proc/self/fd/${parent.handle.fd}/${name}`;
  const temporary = `.bareagent-${randomBytes(6).toString('hex')}.tmp`;
  let file: WorkspaceFile;
  try {
    file = new WorkspaceFile(openSync(at(temporary), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') return writeInPlace(opened.handle, content);
    throw err;
  }
  let renamed = false;
  try {
    let kept = true;
    try {
      await writeAll(file, content);
      const made = await file.stat();
      if (made.uid !== stats.uid || made.gid !== stats.gid) kept = await file.chown(stats.uid, stats.gid).then(() => true, () => false);
      await file.chmod(stats.mode & 0o7777);
      // An attribute the new file cannot take (a file capability, a trusted.* one): in place keeps them.
      if (kept) kept = (await copyAttributes(at(parent.name), at(temporary))) !== 'failed';
    } finally {
      await file.close();
    }
    if (!kept) return await writeInPlace(opened.handle, content);
    // The entry still names the file that was checked, in a directory still inside the workspace.
    const now = lstatOrUndefined(at(parent.name));
    if (now?.ino !== stats.ino || now.dev !== stats.dev) {
      throw new ToolError(`${shownPath} was moved or replaced while it was being written; nothing was written`);
    }
    if (!isInside(root, readlinkSync(`/proc/self/fd/${parent.handle.fd}`))) {
      throw new ToolError(`${shownPath} was moved out of the workspace while it was being written; nothing was written`);
    }
    try {
      renameSync(at(temporary), at(parent.name));
      renamed = true;
    } catch (err) {
      // A file that is a mount point (a bind-mounted file) cannot be renamed over.
      if ((err as NodeJS.ErrnoException).code === 'EBUSY') return await writeInPlace(opened.handle, content);
      throw err;
    }
  } finally {
    if (!renamed) removeQuietly(at(temporary));
  }
}

function lstatOrUndefined(at: string) {
  try {
    return lstatSync(at);
  } catch {
    return undefined;
  }
}

function removeQuietly(at: string): void {
  try {
    unlinkSync(at);
  } catch {
    // Already gone, or the folder took it away: nothing of the user's is lost either way.
  }
}

async function writeInPlace(handle: WorkspaceFile, content: Buffer): Promise<void> {
  await handle.truncate(0);
  await writeAll(handle, content);
}

async function writeAll(handle: WorkspaceFile, content: Buffer): Promise<void> {
  let written = 0;
  while (written < content.length) {
    const { bytesWritten } = await handle.write(content, written, content.length - written, written);
    written += bytesWritten;
  }
}
