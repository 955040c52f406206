import type { ToolCall } from '../common/messages';
import { toolSummary } from '../common/tool-schemas';
import { MAX_TRUNCATION_RECOVERIES } from './reply';
import type { StopReason } from '../common/failures';

/**
 * An iteration ends with a transition that carries its reason, not a bare
 * continue/stop flag; the reason decides what the next step changes (prompt, budget, state).
 * Each transition is one step record (`describeTransition`); a stop also ends the run.
 */
export type Transition =
  /** The tool round is done (a warning added to it, if any), or an answer came while a follow-up waits. */
  | {
      kind: 'next_turn';
      warned?: 'repeated_action' | 'repeated_failure';
      /** The tool round's calls, how many brought new evidence, and how its commands were confined. */
      calls?: ToolCall[];
      evidence?: number;
      sandbox?: string;
      /** An answer was proposed while a follow-up is queued. */
      followUpQueued?: boolean;
    }
  | { kind: 'compacted'; mode: 'micro' | 'full'; tokensBefore: number; tokensAfter: number }
  | { kind: 'compaction_failed'; error: string }
  /** The reply hit the output-token limit: continue with a recovery prompt, at most 3 times (per turn, in newer runs). */
  | { kind: 'output_truncated'; recoveries: number; perTurn?: boolean }
  /** The model replied with nothing: nudged once. */
  | { kind: 'empty_reply' }
  /** A run whose final answer is a tool got text without a call: kept as a note, the model told to go on. */
  | { kind: 'text_reply'; chars: number }
  | { kind: 'waiting_for_human' }
  | { kind: 'waiting_for_jobs'; jobs: string[] }
  /** A user follow-up arrived while the run worked; taken at a safe boundary. */
  | { kind: 'follow_up_taken'; count?: number }
  /** A final answer was proposed but the acceptance check failed: the loop continues. */
  | { kind: 'acceptance_failed'; attempts: number; output?: string }
  /** Answered, and open for follow-ups for `timeout`. */
  | { kind: 'idle'; timeout: string | number }
  | { kind: 'continue_as_new'; historyLength: number }
  /** The `cancelTurn` signal stopped the turn; the run waits for the next message (`timeout`), or ends without one. */
  | { kind: 'turn_cancelled'; reason: string; cancelledCalls: string[]; timeout?: string | number }
  /** A permission question nobody answered in time: denied. */
  | { kind: 'approval_timed_out'; call: ToolCall; input: unknown; why: string }
  /** A human allowed a call and every call `rule` matches for the rest of the run. */
  | { kind: 'allowed_for_run'; call: ToolCall; rule: string }
  /** Telling the webhooks about a request was given up on; the request stays open. */
  | { kind: 'notification_failed'; requestId: string; error: string }
  /** A hook blocked a tool call (PreToolUse) with a reason the model sees. */
  | { kind: 'hook_blocked'; event: string; reason: string; call?: ToolCall }
  /** A hook failed or timed out: recorded, and the default applies. */
  | { kind: 'hook_failed'; event: string; command: string; error: string }
  /** A hook was not run: a workspace file it runs changed since the run started. Fails closed: a PreToolUse call does not run, a Stop answer is refused. */
  | { kind: 'hook_refused'; event: string; command: string; reason: string }
  /** A Stop hook refused the final answer (once per run): the reason goes to the model. */
  | { kind: 'stop_refused'; reason: string }
  /** A permission question in a run nobody watches: denied. */
  | { kind: 'approval_unavailable'; call: ToolCall; why: string }
  /** An at-most-once call whose worker was lost while it ran: it may have run; what is known about it. */
  | { kind: 'may_have_run'; call: ToolCall; detail: string }
  /** `message` is the failure's message for every stop but the final answer (and a cancellation, which is Temporal's). */
  | { kind: 'stop'; reason: StopReason; message?: string; detail?: string };

export type Stop = Extract<Transition, { kind: 'stop' }>;

/** What a step record stores for a transition. */
export interface StepContent {
  reason: string;
  detail?: string;
  evidence: number;
  calls: ToolCall[];
  sandbox?: string;
}

export function describeTransition(transition: Transition): StepContent {
  const step = (reason: string, detail?: string): StepContent => ({ reason, ...(detail !== undefined ? { detail } : {}), evidence: 0, calls: [] });
  switch (transition.kind) {
    case 'next_turn': {
      if (transition.followUpQueued) return step('next_turn', 'answered; a follow-up is queued');
      const reason = transition.warned ? `next_turn:${transition.warned}_warned` : 'next_turn';
      return {
        reason,
        evidence: transition.evidence ?? 0,
        calls: transition.calls ?? [],
        ...(transition.sandbox !== undefined ? { sandbox: transition.sandbox } : {}),
      };
    }
    case 'compacted':
      return step(`compacted:${transition.mode}`, `context too long: ~${transition.tokensBefore} → ~${transition.tokensAfter} tokens`);
    case 'compaction_failed':
      return step('compaction_failed', `summary failed (${transition.error}); history restored from the backup`);
    case 'output_truncated':
      return step('output_truncated', `recovery ${transition.recoveries} of ${MAX_TRUNCATION_RECOVERIES}${transition.perTurn ? ' in this turn' : ''}`);
    case 'empty_reply':
      return step('empty_reply', 'the model replied with nothing: nudged once');
    case 'text_reply':
      return step('text_reply', `${transition.chars} characters of text without a tool call: kept as a note, not the answer`);
    case 'waiting_for_human':
      return step('waiting_for_human');
    case 'waiting_for_jobs':
      return step('waiting_for_jobs', `final answer proposed while ${transition.jobs.join(', ')} still run`);
    case 'follow_up_taken':
      return step('follow_up_taken', `${transition.count ?? 1} follow-up(s)`);
    case 'acceptance_failed':
      return { ...step('acceptance_failed', (transition.output ?? '').slice(0, 300)), evidence: 1 };
    case 'idle':
      return step('idle', `answered; open for follow-ups for ${transition.timeout}`);
    case 'turn_cancelled': {
      const calls = transition.cancelledCalls.length > 0 ? `; cancelled: ${transition.cancelledCalls.join(', ')}` : '';
      const next = transition.timeout === undefined ? '' : `; open for follow-ups for ${transition.timeout}`;
      return step('turn_cancelled', `${transition.reason.slice(0, 300)}${calls}${next}`);
    }
    case 'continue_as_new':
      return step('continue_as_new', `history of ${transition.historyLength} events handed to a new run`);
    case 'approval_timed_out':
      return { ...step('approval_timed_out', `${toolSummary(transition.call.name, transition.input)} (${transition.why})`), calls: [transition.call] };
    case 'allowed_for_run':
      return { ...step('allowed_for_run', `${transition.rule} allowed for the rest of the run by a human`), calls: [transition.call] };
    case 'notification_failed':
      return step('notification_failed', `request ${transition.requestId}: ${transition.error}; given up, the run goes on`);
    case 'hook_blocked':
      return { ...step('hook_blocked', `${transition.event} hook: ${transition.reason.slice(0, 300)}`), calls: transition.call ? [transition.call] : [] };
    case 'hook_failed':
      return step('hook_failed', `${transition.event} hook \`${transition.command.slice(0, 120)}\`: ${transition.error}; the default applies`);
    case 'hook_refused':
      return step('hook_refused', `${transition.event} hook \`${transition.command.slice(0, 120)}\` not run: ${transition.reason.slice(0, 300)}`);
    case 'stop_refused':
      return step('stop_refused', `a Stop hook refused the answer: ${transition.reason.slice(0, 300)}`);
    case 'approval_unavailable':
      return { ...step('approval_unavailable', `${transition.why}; nobody to ask in the background: denied`), calls: [transition.call] };
    case 'may_have_run':
      return { ...step('may_have_run', transition.detail.slice(0, 1_000)), calls: [transition.call] };
    case 'stop':
      return step(`stop:${transition.reason}`, transition.detail);
  }
}
