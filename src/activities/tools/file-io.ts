import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, readlink, rename, unlink, type FileHandle } from 'node:fs/promises';
import { ToolError } from './tool-error';
import type { OpenedFile } from './safe-open';
import { isInside } from './workspace';

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;

/** Up to `size` bytes from the start; fewer if the file shrank since it was measured. */
export async function readPrefix(handle: FileHandle, size: number): Promise<Buffer> {
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
  let file: FileHandle;
  try {
    file = await open(at(temporary), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
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
    } finally {
      await file.close();
    }
    if (!kept) return await writeInPlace(opened.handle, content);
    // The entry still names the file that was checked, in a directory still inside the workspace.
    const now = await lstat(at(parent.name)).catch(() => undefined);
    if (now?.ino !== stats.ino || now.dev !== stats.dev) {
      throw new ToolError(`${shownPath} was moved or replaced while it was being written; nothing was written`);
    }
    if (!isInside(root, await readlink(`/proc/self/fd/${parent.handle.fd}`))) {
      throw new ToolError(`${shownPath} was moved out of the workspace while it was being written; nothing was written`);
    }
    try {
      await rename(at(temporary), at(parent.name));
      renamed = true;
    } catch (err) {
      // A file that is a mount point (a bind-mounted file) cannot be renamed over.
      if ((err as NodeJS.ErrnoException).code === 'EBUSY') return await writeInPlace(opened.handle, content);
      throw err;
    }
  } finally {
    if (!renamed) await unlink(at(temporary)).catch(() => undefined);
  }
}

async function writeInPlace(handle: FileHandle, content: Buffer): Promise<void> {
  await handle.truncate(0);
  await writeAll(handle, content);
}

async function writeAll(handle: FileHandle, content: Buffer): Promise<void> {
  let written = 0;
  while (written < content.length) {
    const { bytesWritten } = await handle.write(content, written, content.length - written, written);
    written += bytesWritten;
  }
}
