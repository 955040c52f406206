import { CancellationScope, isCancellation, log, setHandler } from '@temporalio/workflow';
import { describeIssues } from '../common/input';
import { cancelTurnSignal } from '../common/contract';
import { CancelTurnInput } from '../common/wire';

/** The reason a step record gives when the `cancelTurn` signal named none. */
export const DEFAULT_CANCEL_REASON = 'cancelled by the user';

/**
 * The `cancelTurn` signal: each turn runs in a cancellation scope of its own, and the signal
 * cancels that scope (the model call or tool call under way), never the run. A signal while the
 * run waits for a message or for jobs is ignored (there is no turn to stop), unless a message is
 * already queued: then it stops the turn that message is about to start. Nothing here commands
 * anything until a signal arrives, so runs recorded without one replay as they were.
 */
export class TurnCancel {
  private scope: CancellationScope | undefined;
  private requested: string | undefined;

  /** `waiting`: the run waits for a message or for jobs, with no turn under way or about to start. */
  constructor(waiting: () => boolean) {
    setHandler(cancelTurnSignal, (raw) => {
      const parsed = CancelTurnInput.safeParse(raw ?? {});
      if (!parsed.success) return log.warn(`cancelTurn signal ignored: ${describeIssues(parsed.error)}`);
      if (this.requested !== undefined) return;
      if (waiting()) return log.info('cancelTurn signal ignored: no turn under way');
      this.requested = parsed.data.reason ?? DEFAULT_CANCEL_REASON;
      this.scope?.cancel();
    });
  }

  /** A turn is being cancelled: what it still does on its way out (withdrawing a question) must not be cancelled too. */
  get cancelling(): boolean {
    return this.requested !== undefined;
  }

  /**
   * The turn's own result, and the reason when the signal cancelled it; any other cancellation (the
   * run's) goes on up. A turn can end without a cancellation error even so (a checkpoint or a hook
   * reports its failure as a value, and a killed command has a result): it is still a cancelled turn.
   */
  async run<T>(turn: () => Promise<T>): Promise<{ done?: T; cancelled?: string }> {
    const scope = new CancellationScope();
    this.scope = scope;
    // Asked for before this turn began (a message was queued): this turn is the one to stop.
    if (this.requested !== undefined) scope.cancel();
    try {
      const done = await scope.run(turn);
      return { done, ...(this.requested !== undefined ? { cancelled: this.requested } : {}) };
    } catch (err) {
      const reason = this.requested;
      if (reason !== undefined && isCancellation(err) && !CancellationScope.current().consideredCancelled) return { cancelled: reason };
      throw err;
    } finally {
      this.scope = undefined;
      this.requested = undefined;
    }
  }
}
