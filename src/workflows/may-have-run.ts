import type { MayHaveRun, WorkspaceChanges } from '../common/may-have-run';
import type { ToolCall } from '../common/messages';
import { repeatableTools } from './activity-proxies';
import { attempt, workerLost } from './failures';
import type { RunReporter } from './run-reporter';
import type { RunState } from './run-state';

/** The newest lost calls `status` shows and continue-as-new carries; each stays a step record anyway. */
export const CARRIED_MAY_HAVE_RUN = 20;

/**
 * A tool call's idempotency key: the same for every attempt, every worker and every run of the
 * conversation (the workflow id survives continue-as-new; tool-call ids are unique in a run).
 */
export function idempotencyKey(workflowId: string, callId: string): string {
  return `${workflowId}/${callId}`;
}

export interface MayHaveRunContext {
  state: RunState;
  report: RunReporter;
  workflowId: string;
  /** Asked at each use: the run's workspace becomes the canonical path it was authorised for after its start. */
  workspace: () => string | undefined;
  toolTaskQueue: string | undefined;
}

/** What the run knows about at-most-once calls whose worker was lost while they ran. */
export class MayHaveRunLog {
  private readonly pending: Array<{ call: ToolCall; entry: MayHaveRun }> = [];

  constructor(private readonly context: MayHaveRunContext) {}

  /**
   * After an at-most-once call failed: when its worker was lost, the known facts (how long it ran,
   * what changed in the workspace since it started) are kept for `status` and a step, and returned
   * as a sentence for the model's error result. Nothing for any other failure.
   */
  async failed(call: ToolCall, summary: string, startedAtMs: number, err: unknown): Promise<string> {
    const lost = workerLost(err);
    if (!lost) return '';
    const lostAfterMs = Date.now() - startedAtMs;
    const { toolTaskQueue, state, workflowId } = this.context;
    const workspace = this.context.workspace();
    const looked = await attempt(() =>
      repeatableTools.workspaceChanges.executeWithOptions(
        { summary: 'what changed in the workspace', ...(toolTaskQueue ? { taskQueue: toolTaskQueue } : {}) },
        [{ ...(workspace ? { workspace } : {}), sinceMs: startedAtMs }],
      ),
    );
    const ranAtLeastMs = runningMsOf(lost.lastHeartbeatDetails);
    const entry: MayHaveRun = {
      step: state.budget.iterations,
      callId: call.id,
      tool: call.name,
      call: summary,
      idempotencyKey: idempotencyKey(workflowId, call.id),
      ...(ranAtLeastMs !== undefined ? { ranAtLeastMs } : {}),
      lostAfterMs,
      ...(looked.ok ? { workspaceChanges: looked.value } : {}),
    };
    state.mayHaveRun = [...(state.mayHaveRun ?? []), entry].slice(-CARRIED_MAY_HAVE_RUN);
    this.pending.push({ call, entry });
    return ` ${knownFacts(entry)}`;
  }

  /** The round's lost calls as `may_have_run` steps, once the round's results are in the conversation. */
  record(): void {
    for (const { call, entry } of this.pending.splice(0)) {
      this.context.report.record({ kind: 'may_have_run', call, detail: `${entry.call}: ${knownFacts(entry)} Idempotency key ${entry.idempotencyKey}.` }, this.context.report.budget());
    }
  }
}

function runningMsOf(details: unknown): number | undefined {
  const ms = (details as { runningMs?: unknown } | null | undefined)?.runningMs;
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? Math.round(ms) : undefined;
}

/** `It ran at least 12.0 s. Files changed in the workspace since it started: "a.txt" (and 2 more).` */
export function knownFacts(entry: MayHaveRun): string {
  const ran = entry.ranAtLeastMs !== undefined ? `It ran at least ${(entry.ranAtLeastMs / 1000).toFixed(1)} s.` : 'It sent no sign of life before its worker was lost.';
  return `${ran} ${describeChanges(entry.workspaceChanges)}`;
}

function describeChanges(changes: WorkspaceChanges | undefined): string {
  if (!changes) return 'What changed in the workspace could not be looked at.';
  const partial = changes.complete ? '' : ' (a partial look: the workspace is large)';
  if (changes.files.length === 0) return `No file in the workspace changed since it started${partial}.`;
  const more = changes.more > 0 ? ` (and ${changes.more} more)` : '';
  return `Files changed in the workspace since it started${partial}: ${changes.files.join(', ')}${more}.`;
}
