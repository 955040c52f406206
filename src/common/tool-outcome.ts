import type { CheckpointRequest, CheckpointResult } from './checkpoint';
import type { SandboxKind, SandboxRequest } from './sandbox';

/** What a tool activity gets: plain JSON, the workspace it is confined to and the parsed arguments. */
export interface ToolRequest {
  workspace?: string;
  input: unknown;
  /** How the run's commands are confined (bash); the default sandbox when absent. */
  sandbox?: SandboxRequest;
  /** edit_file: whether the run read or wrote this file before (a miss then says so); unknown when absent. */
  fileRead?: boolean;
  /** edit_file: an earlier edit_file of this run replaced text holding this call's old_text (a miss then says so). */
  changedByEarlierEdit?: boolean;
  /**
   * write_file, edit_file: the run's guard lets a grep of the whole workspace run unasked, so the
   * lines that still use a name the write took away are searched for and named in its result.
   */
  searchUsers?: boolean;
  /** The call's idempotency key, `<workflow id>/<tool call id>`: the same for every attempt and run of the conversation. */
  callId?: string;
  /**
   * write_file, edit_file, bash: the checkpoint to take once the tool ran, in the same activity
   * (the worker that wrote knows what: write_file's and edit_file's path is all it reads).
   */
  checkpoint?: CheckpointRequest;
}

/** A tool that threw is a result the model reads, not an activity failure: it is never retried. */
export type ToolOutcome =
  | {
      ok: true;
      output: string;
      /** a refusal worded by the tool itself, e.g. the subagent depth limit */
      isError?: boolean;
      /** how a command tool (bash) was confined */
      sandbox?: SandboxKind;
      /** The checkpoint the request asked for, taken after the tool ran. */
      checkpoint?: CheckpointResult;
    }
  | { ok: false; errorType: string; message: string; checkpoint?: CheckpointResult };
