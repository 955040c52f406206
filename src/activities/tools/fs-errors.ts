import { ToolError } from '../../common/errors';

export class FileNotFoundError extends ToolError {}
export class IsADirectoryError extends ToolError {}
export class NotADirectoryError extends ToolError {}
export class PermissionError extends ToolError {}

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
    default:
      return err;
  }
}
