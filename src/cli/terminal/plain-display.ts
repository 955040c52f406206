import pc from 'picocolors';
import { visibleProse } from '../../common/visible-text';
import type { RunEvent } from '../../common/events';
import { eventLine } from '../render';
import type { RunDisplay } from './run-display';

/**
 * Output that is not a terminal (a pipe, a file, a test): text streams inline as it comes and
 * nothing is redrawn, so a retried attempt's partial text cannot be taken back: it is marked.
 */
export class PlainDisplay implements RunDisplay {
  private midLine = false;
  /** Text of the current model call shown so far: a retry has something to drop only then. */
  private attemptText = false;
  answerShown = false;

  constructor(private readonly write: (text: string) => void = (t) => process.stdout.write(t)) {}

  async event(event: RunEvent): Promise<void> {
    if (event.type === 'text') {
      this.write(visibleProse(event.delta));
      this.midLine = !event.delta.endsWith('\n');
      this.answerShown = true;
      this.attemptText = true;
      return;
    }
    if (event.type === 'tool_call') this.answerShown = false;
    if (event.type === 'model_call') this.attemptText = false;
    if (event.type === 'attempt_restart') {
      if (this.attemptText) this.note(pc.yellow(`↻ model call retried (attempt ${event.attempt}); the partial text above is dropped`));
      this.attemptText = false;
      return;
    }
    if (event.type === 'final') {
      this.endLine();
      // A follower that joined after the text streamed still gets the answer.
      if (!this.answerShown && event.text) this.write(`${visibleProse(event.text)}\n`);
      this.answerShown ||= !!event.text;
      return;
    }
    const line = eventLine(event);
    if (line !== undefined) this.note(line);
  }

  note(line: string): void {
    this.endLine();
    this.write(`${line}\n`);
  }

  warn(line: string): void {
    this.endLine();
    console.error(pc.yellow(line));
  }

  pause(): void {
    this.endLine();
  }

  resume(): void {}

  async close(): Promise<void> {
    this.endLine();
  }

  private endLine(): void {
    if (this.midLine) this.write('\n');
    this.midLine = false;
  }
}
