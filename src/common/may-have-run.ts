/** What the worker is asked after a lost at-most-once call: what changed in the workspace since it started. */
export interface WorkspaceChangesRequest {
  workspace?: string;
  /** Epoch ms: when the call was started. */
  sinceMs: number;
}

export interface WorkspaceChanges {
  /** JSON-quoted workspace-relative names, newest first, at most 20. */
  files: string[];
  /** Changed files beyond those listed. */
  more: number;
  /** false: the workspace has more entries than a cheap look walks, so some changes may be missing. */
  complete: boolean;
}

/**
 * An at-most-once call (bash, edit_file, an MCP tool not marked read-only or idempotent) whose
 * worker was lost while it ran: it may have run in part, in full or not at all, and is never run
 * again. The model got an error result; `status` and a `may_have_run` step show what is known.
 */
export interface MayHaveRun {
  /** The iteration of the call. */
  step: number;
  callId: string;
  tool: string;
  /** The call as a one-line summary (the command, the file and arguments). */
  call: string;
  /** BAREAGENT_CALL_ID in the command's environment, `_meta["bareagent/callId"]` for an MCP server. */
  idempotencyKey: string;
  /** From the call's last heartbeat: it ran at least this long (absent when it never reported). */
  ranAtLeastMs?: number;
  /** From its start until the run learned that its worker was lost (includes the heartbeat timeout). */
  lostAfterMs: number;
  /** What changed in the workspace since the call started; absent when that could not be looked at. */
  workspaceChanges?: WorkspaceChanges;
}
