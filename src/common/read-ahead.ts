import type { PermissionMode } from './input';
import type { ToolOutcome } from './tool-outcome';

/**
 * What a model call may read before it returns: the built-in read-only tools (read_file, glob,
 * grep) that its reply calls, run in the model call's own activity when every call of the reply is
 * one of them. The workflow then takes each result as the tool's, so a turn that only reads costs
 * one workflow task and no local activity (docs/how-a-run-works.md, "Reads with the model call").
 */
export interface ReadAheadRequest {
  /** The run's workspace, as its read tools get it. */
  workspace?: string;
  /** The read-only built-in tools of this run that it would run as local activities. */
  tools: string[];
  /** The run's permission mode and deny rules (`read_file(secrets/**)`): a call the run's guard would not allow outright is never read ahead. */
  mode: PermissionMode;
  deny?: string[];
}

/** One call read ahead: the arguments it ran with, as the workflow would have checked them, and its outcome. */
export interface ReadAheadResult {
  input: unknown;
  outcome: ToolOutcome;
}
