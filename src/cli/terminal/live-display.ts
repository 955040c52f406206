import pc from 'picocolors';
import { visibleProse } from '../../common/visible-text';
import type { RunEvent } from '../../common/events';
import type { StepRecord } from '../../common/wire';
import { eventLine } from '../render';
import { renderMarkdown } from './markdown';
import type { RunDisplay } from './run-display';
import { advance, startProgress, statusLine, type RunProgress } from './run-progress';

type LogUpdate = ReturnType<typeof import('log-update', { with: { 'resolution-mode': 'import' } }).createLogUpdate>;

function isFinalStep(event: RunEvent): boolean {
  return event.type === 'step' && (event.record as StepRecord).reason === 'stop:final_answer';
}

const FRAMES = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';
const TICK_MS = 120;

/**
 * A terminal: what is final is printed once and scrolls away; below it a live region holds the
 * text the model is streaming now and a status line, redrawn in place (log-update). The text of
 * a turn stays live until the turn ends, so a retried attempt's partial text is really taken
 * back, and the final answer is printed whole, as Markdown, when it is complete.
 */
export class LiveDisplay implements RunDisplay {
  private streaming = { step: -1, attempt: 0, text: '' };
  private progress: RunProgress = startProgress(Date.now());
  private frame = 0;
  private ticker: NodeJS.Timeout | undefined;
  private paused = false;
  private committed = '';
  private finalStepLine: string | undefined;
  answerShown = false;

  private constructor(
    private readonly live: LogUpdate,
    private readonly out: NodeJS.WriteStream,
    private readonly colors: boolean,
  ) {
    this.ticker = setInterval(() => this.tick(), TICK_MS);
    this.ticker.unref();
    this.draw();
  }

  /** log-update is an ES module; this package is CommonJS. */
  static async open(out: NodeJS.WriteStream = process.stdout): Promise<LiveDisplay> {
    const { createLogUpdate } = await import('log-update');
    return new LiveDisplay(createLogUpdate(out), out, pc.isColorSupported);
  }

  async event(event: RunEvent): Promise<void> {
    this.progress = advance(this.progress, event);
    switch (event.type) {
      case 'text':
        await this.takeText(event);
        break;
      case 'model_call':
        break;
      case 'attempt_restart':
        // A retry after an attempt that showed nothing (a connection refused) has nothing to drop.
        if (this.streaming.text) this.print(pc.yellow(`↻ model call retried (attempt ${event.attempt}); its partial text was dropped`));
        this.streaming.text = '';
        break;
      case 'final':
        await this.printAnswer(event.text || this.streaming.text);
        this.printFinalStep();
        break;
      default: {
        const line = eventLine(event, this.width);
        // The final answer's step comes just before the answer: it is printed after it.
        if (isFinalStep(event)) {
          this.finalStepLine = line;
          break;
        }
        await this.commitText();
        if (line !== undefined) this.print(line);
        if (event.type === 'permission_request') this.out.write('\x07');
      }
    }
    this.draw();
  }

  note(line: string): void {
    this.print(line);
    this.draw();
  }

  warn(line: string): void {
    this.note(pc.yellow(line));
  }

  pause(): void {
    this.paused = true;
    this.live.clear();
    this.live.done();
  }

  resume(): void {
    this.paused = false;
    this.draw();
  }

  async close(): Promise<void> {
    await this.commitText();
    this.printFinalStep();
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
    this.live.clear();
    this.live.done();
  }

  private get width(): number {
    return Math.max(20, (this.out.columns || 80) - 1);
  }

  private async takeText(event: Extract<RunEvent, { type: 'text' }>): Promise<void> {
    const { step, attempt } = this.streaming;
    if (event.step === step && event.attempt < attempt) return; // late text of a dropped attempt
    if (event.step !== step) await this.commitText();
    if (event.step !== step || event.attempt !== attempt) this.streaming = { step: event.step, attempt: event.attempt, text: '' };
    this.streaming.text += event.delta;
    this.answerShown = false;
  }

  /** A turn that goes on (tool calls, a wait): what it said stays on the screen, as Markdown. */
  private async commitText(): Promise<void> {
    const text = this.streaming.text.trim();
    this.streaming.text = '';
    if (!text) return;
    this.print(await renderMarkdown(text, this.width, this.colors));
    this.committed = text;
  }

  /** The answer, whole; not twice when it was already shown while the run waited (idle, jobs). */
  private async printAnswer(text: string): Promise<void> {
    this.streaming.text = '';
    const answer = text.trim();
    if (!answer) return;
    if (answer !== this.committed) this.print(await renderMarkdown(answer, this.width, this.colors));
    this.committed = answer;
    this.answerShown = true;
  }

  private printFinalStep(): void {
    if (this.finalStepLine !== undefined) this.print(this.finalStepLine);
    this.finalStepLine = undefined;
  }

  private print(text: string): void {
    this.live.persist(`${text}\n`);
  }

  private tick(): void {
    this.frame = (this.frame + 1) % FRAMES.length;
    this.draw();
  }

  private draw(): void {
    if (this.paused || !this.ticker) return;
    const status = statusLine(this.progress, Date.now(), this.width, FRAMES[this.frame]);
    const text = visibleProse(this.streaming.text.trimEnd());
    this.live(text ? `${text}\n\n${pc.dim(status)}` : pc.dim(status));
  }
}
