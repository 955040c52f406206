import pc from 'picocolors';
import type { RunEvent } from '../common/events';
import { toolSummary } from '../common/tool-schemas';
import type { StepRecord } from '../common/wire';

/**
 * Turns a run's events into terminal output. Text streams inline; a tool call first ends the
 * current text line (seed 000, 8.4); a retried attempt's partial text is marked as dropped.
 */
export class Renderer {
  private midLine = false;

  constructor(private readonly write: (text: string) => void = (t) => process.stdout.write(t)) {}

  render(event: RunEvent): void {
    switch (event.type) {
      case 'text':
        this.write(event.delta);
        this.midLine = !event.delta.endsWith('\n');
        return;
      case 'attempt_restart':
        this.line(pc.yellow(`↻ model call retried (attempt ${event.attempt}); the partial text above is dropped`));
        return;
      case 'tool_call':
        this.line(pc.cyan(`⏺ ${toolSummary(event.name, event.input, 160)}`));
        return;
      case 'tool_result': {
        const lines = event.preview.split('\n');
        const first = lines[0] ?? '';
        const more = lines.length > 1 ? ` (+${lines.length - 1} more line${lines.length === 2 ? '' : 's'})` : '';
        const shown = (first.length > 100 ? `${first.slice(0, 99)}…` : first) + more;
        this.line(event.isError ? pc.red(`  ⎿ ${shown}`) : pc.dim(`  ⎿ ${shown || '(no output)'}`));
        return;
      }
      case 'status':
        this.line(pc.yellow(event.message));
        return;
      case 'permission_request':
        this.line(pc.magenta(`? permission needed: ${toolSummary(event.tool, event.input, 160)} (request ${event.requestId})`));
        return;
      case 'permission_decided':
        this.line(pc.magenta(`  ${event.decision === 'allow' ? '✔ allowed' : '✘ denied'}: ${event.reason}`));
        return;
      case 'notification':
        this.line(pc.blue(event.text));
        return;
      case 'step':
        this.line(pc.dim(describeStep(event.record as StepRecord)));
        return;
      case 'model_call':
        return;
      case 'final':
        if (this.midLine) this.write('\n');
        this.midLine = false;
        return;
      case 'failed':
        this.line(pc.red(`✘ ${event.failureType}: ${event.message}`));
        return;
    }
  }

  /** Prints a whole line, first ending streamed text that is still open. */
  line(text: string): void {
    if (this.midLine) this.write('\n');
    this.midLine = false;
    this.write(`${text}\n`);
  }
}

/** `· step 3 next_turn · 2 new results · 188 iterations left`: why the step ended and what is left. */
export function describeStep(record: StepRecord): string {
  const parts = [`· step ${record.step_id} ${record.reason}`];
  if (record.evidence_delta) parts.push(`${record.evidence_delta} new result${record.evidence_delta === 1 ? '' : 's'}`);
  const left = record.budget_after;
  if (left && typeof left.iterations === 'number') parts.push(`${left.iterations} iterations left`);
  if (left && typeof left.tokens === 'number') parts.push(`${left.tokens} tokens left`);
  if (record.detail) parts.push(record.detail.length > 100 ? `${record.detail.slice(0, 99)}…` : record.detail);
  return parts.join(' · ');
}
