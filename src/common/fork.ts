import type { Message } from './messages';

/** A fork's link to its origin, as `status`, the memo and the Web UI summary show it. */
export interface ForkOrigin {
  workflowId: string;
  /** The run of the origin's chain the conversation was read from. */
  runId: string;
  /** The origin's step the fork starts after (its last step when none was asked). */
  step: number;
}

/** What the `loadForkOrigin` activity returns: the origin's conversation up to the step, ready for the model. */
export interface ForkStart {
  origin: ForkOrigin;
  messages: Message[];
  /** Tool calls the origin asked for but never ran (it stopped mid-round): closed with error results. */
  closedToolCalls: number;
  /**
   * With `restoreFiles`: the origin's checkpoint in effect at the step, and the store that holds
   * it; `leftOut`, when it is the origin's newest, what that snapshot could not hold.
   */
  checkpoint?: { store: string; id: string; step: number; leftOut?: string[] };
  /** The fork's own workspace as the authorisation resolved it (symlinks followed): the run uses this path from then on. */
  workspace?: string;
}

/** The summary the CLI gives a fork in the Web UI and `bareagent list`. */
export function forkSummary(origin: { workflowId: string; step?: number | undefined }, prompt: string): string {
  return `fork of ${origin.workflowId}${origin.step === undefined ? '' : ` at step ${origin.step}`}: ${prompt}`;
}
