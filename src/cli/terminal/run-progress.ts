import type { RunEvent } from '../../common/events';
import type { BudgetSnapshot, StepRecord } from '../../common/wire';

/** What the status line shows: what the run is doing now and what it has used and has left. */
export interface RunProgress {
  phase: string;
  step: number;
  budget?: BudgetSnapshot;
  startedAt: number;
}

export function startProgress(now: number): RunProgress {
  return { phase: 'starting', step: 0, startedAt: now };
}

/** The progress after one event of the run's stream. */
export function advance(progress: RunProgress, event: RunEvent): RunProgress {
  switch (event.type) {
    case 'model_call':
      return { ...progress, phase: 'thinking', step: event.step };
    case 'text':
      return { ...progress, phase: 'writing', step: event.step };
    case 'tool_call':
      return { ...progress, phase: `running ${event.name}`, step: event.step };
    case 'permission_request':
      return { ...progress, phase: 'waiting for your answer' };
    case 'permission_decided':
      return { ...progress, phase: 'running tools' };
    case 'step': {
      const record = event.record as StepRecord;
      return { ...progress, budget: record.budget_after, phase: phaseAfterStep(record.reason, progress.phase) };
    }
    case 'final':
      return { ...progress, phase: 'done' };
    case 'failed':
      return { ...progress, phase: 'failed' };
    default:
      return progress;
  }
}

function phaseAfterStep(reason: string, phase: string): string {
  if (reason.startsWith('waiting_for_jobs')) return 'waiting for background jobs';
  if (reason.startsWith('idle')) return 'waiting for a follow-up message';
  if (reason.startsWith('next_turn')) return 'thinking';
  if (reason.startsWith('waiting_for_human')) return 'waiting for your answer';
  return phase;
}

/**
 * `⠋ thinking · step 3 · 12s · 1.2k tokens · $0.0042 · 197 iterations left`, cut to `width`
 * columns so that it never wraps (a wrapped status line would leave copies behind on redraw).
 */
export function statusLine(progress: RunProgress, now: number, width: number, frame = ''): string {
  const parts = [`${frame ? `${frame} ` : ''}${progress.phase}`];
  if (progress.step > 0) parts.push(`step ${progress.step}`);
  parts.push(elapsed(now - progress.startedAt));
  const budget = progress.budget;
  if (budget) {
    parts.push(`${compact(budget.used.inputTokens + budget.used.outputTokens)} tokens`);
    if (budget.used.costUsd > 0) parts.push(`$${budget.used.costUsd.toFixed(4)}`);
    parts.push(...left(budget));
  }
  return fit(parts.join(' · '), width);
}

function left(budget: BudgetSnapshot): string[] {
  const out: string[] = [];
  if (budget.iterations !== null) out.push(`${budget.iterations} iterations left`);
  if (budget.tokens !== null) out.push(`${compact(budget.tokens)} tokens left`);
  if (budget.costUsd !== null) out.push(`$${budget.costUsd.toFixed(2)} left`);
  if (budget.wallClockMs !== null) out.push(`${elapsed(budget.wallClockMs)} left`);
  return out;
}

export function compact(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

function elapsed(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** Cuts to `width` characters with an ellipsis (the status line is plain text: one column per character). */
export function fit(text: string, width: number): string {
  const chars = [...text];
  if (width <= 0) return '';
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}
