import type { Stats } from 'node:fs';
import { ToolError } from './tool-error';

export class FileNotFoundError extends ToolError {}
export class IsADirectoryError extends ToolError {}
export class NotADirectoryError extends ToolError {}
export class PermissionError extends ToolError {}
/** FIFOs, sockets and devices: reading one can block a threadpool thread for ever. */
export class NotARegularFileError extends ToolError {}
/** A second name for a file may live outside the workspace (`ln /outside/f ws/f`). */
export class HardLinkError extends ToolError {}
export class FileTooLargeError extends ToolError {}

/** Node's errno errors become named errors the model can read: `Error: FileNotFoundError: ...`. */
export function explainFsError(err: unknown, shownPath: string): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return new FileNotFoundError(`No such file or directory: ${shownPath}`);
    case 'EISDIR':
      return new IsADirectoryError(`Is a directory: ${shownPath}`);
    case 'ENOTDIR':
      return new NotADirectoryError(`Not a directory: ${shownPath}`);
    case 'EACCES':
    case 'EPERM':
      return new PermissionError(`Permission denied: ${shownPath}`);
    case 'ENXIO':
    case 'EOPNOTSUPP':
      // What O_NONBLOCK opens of a FIFO without reader, or of a socket, fail with.
      return notARegularFile(shownPath, 'FIFO or socket');
    case 'ELOOP':
      return new ToolError(
        `Path "${shownPath}" is a symbolic link that kept changing while it was opened (or has too many levels of links); refusing to follow it`,
      );
    default:
      return err;
  }
}

export function notARegularFile(shownPath: string, kind: string): NotARegularFileError {
  return new NotARegularFileError(`Not a regular file: ${shownPath} is a ${kind}; the file tools only read and write regular files`);
}

export function fileKind(stats: Stats): string {
  if (stats.isDirectory()) return 'directory';
  if (stats.isFIFO()) return 'FIFO (named pipe)';
  if (stats.isSocket()) return 'socket';
  if (stats.isCharacterDevice()) return 'character device';
  if (stats.isBlockDevice()) return 'block device';
  if (stats.isSymbolicLink()) return 'symbolic link';
  return 'regular file';
}
