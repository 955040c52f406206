import type { RunEvent } from '../../common/events';

type TextEvent = Extract<RunEvent, { type: 'text' }>;

/** How often held-back text goes out: often at first, then less often for a reply that runs long. */
export interface PublishPace {
  intervalMs: number;
  /** After this long since the first text, `laterIntervalMs` applies. */
  laterAfterMs: number;
  laterIntervalMs: number;
}

/**
 * Joins a turn's text deltas into one `text` event per interval, the first at once. Every publish
 * from the provider activity is a signal to the run, so one more workflow task (three history
 * events): a model that streams 100 tokens a second would otherwise cost the run ten a second,
 * and a slow local model's minute-long reply five a second for the whole minute. Followers see
 * the same text, in larger pieces; any other event first sends the text before it, so the order
 * holds.
 */
export class TextBatcher {
  private pending: TextEvent | undefined;
  private timer: NodeJS.Timeout | undefined;
  private firstSentAt: number | undefined;

  constructor(
    private readonly send: (event: RunEvent) => void,
    private readonly pace: PublishPace,
  ) {}

  /** Asked only once the first text went out. */
  private interval(firstSentAt: number): number {
    return Date.now() - firstSentAt < this.pace.laterAfterMs ? this.pace.intervalMs : this.pace.laterIntervalMs;
  }

  publish(event: RunEvent): void {
    if (event.type !== 'text') {
      this.flush();
      this.send(event);
      return;
    }
    this.pending = this.pending ? { ...this.pending, delta: this.pending.delta + event.delta } : { ...event };
    if (this.firstSentAt === undefined) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.interval(this.firstSentAt));
  }

  /** Sends the text held back, if any: at each interval, before another event, and at the end of the call. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pending) return;
    this.send(this.pending);
    this.firstSentAt ??= Date.now();
    this.pending = undefined;
  }
}
