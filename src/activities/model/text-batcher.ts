import type { RunEvent } from '../../common/events';

type TextEvent = Extract<RunEvent, { type: 'text' }>;

/**
 * Joins a turn's text deltas into one `text` event per interval, the first at once. Every publish
 * from the provider activity is a signal to the run, so one more workflow task: a model that
 * streams 100 tokens a second would otherwise cost the run ten a second. Followers see the same
 * text, in larger pieces; any other event first sends the text before it, so the order holds.
 */
export class TextBatcher {
  private pending: TextEvent | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sentText = false;

  constructor(
    private readonly send: (event: RunEvent) => void,
    private readonly intervalMs: number,
  ) {}

  publish(event: RunEvent): void {
    if (event.type !== 'text') {
      this.flush();
      this.send(event);
      return;
    }
    this.pending = this.pending ? { ...this.pending, delta: this.pending.delta + event.delta } : { ...event };
    if (!this.sentText) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  /** Sends the text held back, if any: at each interval, before another event, and at the end of the call. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pending) return;
    this.send(this.pending);
    this.sentText = true;
    this.pending = undefined;
  }
}
