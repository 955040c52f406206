/** Raised by a tool when its input is wrong or it refuses (path escape, missing file...): the model sees the message. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Raised when a path would leave the run's workspace. */
export class WorkspaceEscapeError extends ToolError {}
