import type { SandboxKind, SandboxRequest } from './sandbox';

/** What a tool activity gets: plain JSON, the workspace it is confined to and the parsed arguments. */
export interface ToolRequest {
  workspace?: string;
  input: unknown;
  /** How the run's commands are confined (bash); the default sandbox when absent. */
  sandbox?: SandboxRequest;
  /** edit_file: whether the run read or wrote this file before (a miss then says so); unknown when absent. */
  fileRead?: boolean;
  /** The call's idempotency key, `<workflow id>/<tool call id>`: the same for every attempt and run of the conversation. */
  callId?: string;
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
    }
  | { ok: false; errorType: string; message: string };
