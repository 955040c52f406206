/**
 * Stable failure types: each crosses the Temporal boundary as `ApplicationFailure.type`,
 * so clients can tell why a run stopped without parsing messages.
 */
export const FailureType = {
  LLMCallError: 'LLMCallError',
  InvalidInput: 'InvalidInput',
  NoProgress: 'NoProgress',
  BudgetExceeded: 'BudgetExceeded',
  RepeatedFailure: 'RepeatedFailure',
  AcceptanceFailed: 'AcceptanceFailed',
} as const;
export type FailureType = (typeof FailureType)[keyof typeof FailureType];

/** Raised by a tool when its input is wrong or it refuses (path escape, missing file...). */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Raised when a path would leave the run's workspace. */
export class WorkspaceEscapeError extends ToolError {}
