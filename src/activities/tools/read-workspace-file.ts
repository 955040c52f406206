import { openInWorkspace } from './safe-open';
import { FileNotFoundError, FileTooLargeError, fileKind, notARegularFile, NotADirectoryError } from './fs-errors';

/** What the worker reads of a workspace file on its own behalf (settings, instructions): far more than any of them needs. */
export const MAX_WORKSPACE_FILE_BYTES = 1024 * 1024;

/**
 * A workspace file the worker reads for itself (AGENTS.md, `.bareagent/settings.json`,
 * `.bareagent/mcp.json`), opened like the file tools open one: no symlink out of the workspace,
 * swap-proof, a FIFO or device refused at once instead of waited on, and a size cap, so nothing
 * the agent puts there can hold the worker's event loop: only a regular file's bytes are read, up to
 * 64 KiB at a time on the event loop and larger reads through the thread pool (WorkspaceFile).
 * `undefined` when there is no such file.
 */
export async function readWorkspaceFile(root: string, relative: string, maxBytes = MAX_WORKSPACE_FILE_BYTES): Promise<Buffer | undefined> {
  let opened;
  try {
    opened = await openInWorkspace(root, relative, 'read');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (err instanceof FileNotFoundError || err instanceof NotADirectoryError || code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
  try {
    if (!opened.stats.isFile()) throw notARegularFile(relative, fileKind(opened.stats));
    if (opened.stats.size > maxBytes) throw new FileTooLargeError(`${relative} is ${opened.stats.size} bytes; the worker reads at most ${maxBytes}`);
    const buffer = Buffer.alloc(Math.min(opened.stats.size, maxBytes) + 1);
    let length = 0;
    // Read to the cap, not to the size seen by stat: the file may grow meanwhile.
    while (length < buffer.length) {
      const { bytesRead } = await opened.handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) throw new FileTooLargeError(`${relative} is over ${maxBytes} bytes; the worker reads at most that`);
    return buffer.subarray(0, length);
  } finally {
    await opened.handle.close();
  }
}
