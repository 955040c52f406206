/**
 * Events on a run's workflow stream (topic `events`): what `bareagent follow` shows.
 * The provider activity publishes text and tool calls as they stream; the workflow the rest.
 */
export const EVENTS_TOPIC = 'events';

/** The snapshots (git tree ids in the run's checkpoint store) around one tool call. */
export interface ToolCheckpoints {
  before: string;
  after: string;
}

export type RunEvent =
  /** The workflow is about to call the model: a follower shows that it is thinking. */
  | { type: 'model_call'; step: number }
  | { type: 'text'; step: number; attempt: number; delta: string }
  | { type: 'tool_call'; step: number; id: string; name: string; input: unknown }
  /** A retried model call: a follower drops the partial text of the earlier attempt. */
  | { type: 'attempt_restart'; step: number; attempt: number }
  | { type: 'status'; step: number; message: string }
  /**
   * `checkpoint`: the workspace's snapshots just before and just after the call, when the call took
   * one of its own (a writing tool's activity does): what an editor shows as the call's file changes.
   */
  | { type: 'tool_result'; step: number; id: string; name: string; isError: boolean; preview: string; checkpoint?: ToolCheckpoints }
  | { type: 'permission_request'; step: number; requestId: string; toolCallId: string; tool: string; input: unknown; deadline: string; workflowId?: string }
  | { type: 'permission_decided'; step: number; requestId: string; toolCallId: string; decision: 'allow' | 'deny'; reason: string; rule?: string }
  | { type: 'notification'; step: number; text: string }
  /** Files a message mentioned, attached to it (names and sizes; the text is in the message), and mentions that attached nothing. */
  | { type: 'attachments'; step: number; files: Array<{ path: string; kind: 'file' | 'listing'; chars: number; truncated?: boolean }>; skipped: Array<{ path: string; reason: string }> }
  | { type: 'job_started'; step: number; taskId: string; kind: 'command' | 'subagent'; description: string }
  | { type: 'step'; record: unknown }
  | { type: 'final'; text: string; stopReason: string }
  | { type: 'failed'; failureType: string; message: string };
