import pc from 'picocolors';
import { formatTable, styled } from '../terminal/table';
import type { TrialResult } from './trial';

export interface EvalSummary {
  trials: number;
  passed: number;
  /** passed / trials: pass@1 estimated over every trial. */
  passRate: number;
  iterations: number;
  tokens: number;
  wallMs: number;
}

export function summarise(results: TrialResult[]): EvalSummary {
  const passed = results.filter((r) => r.pass).length;
  return {
    trials: results.length,
    passed,
    passRate: results.length ? passed / results.length : 0,
    iterations: results.reduce((sum, r) => sum + r.iterations, 0),
    tokens: results.reduce((sum, r) => sum + r.inputTokens + r.outputTokens, 0),
    wallMs: results.reduce((sum, r) => sum + r.wallMs, 0),
  };
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/** One row a trial, in task order, then the totals. */
export function formatResults(results: TrialResult[]): string {
  const rows = [...results]
    .sort((a, b) => a.task.localeCompare(b.task) || a.trial - b.trial)
    .map((r) => [
      r.task,
      String(r.trial),
      r.pass ? styled('pass', pc.green) : styled('FAIL', pc.red),
      String(r.iterations),
      (r.inputTokens + r.outputTokens).toLocaleString('en-US'),
      seconds(r.wallMs),
      r.stopReason,
      r.workflowId,
    ]);
  const table = formatTable(['TASK', 'TRIAL', 'PASS', 'ITER', 'TOKENS', 'WALL', 'STOP', 'WORKFLOW'], rows);
  const s = summarise(results);
  const total = `passed ${s.passed}/${s.trials} (${Math.round(s.passRate * 100)}%) · ${s.iterations} iterations · ${s.tokens.toLocaleString('en-US')} tokens · ${seconds(s.wallMs)} of runs`;
  return `${table}\n${pc.bold(total)}`;
}

/** `0.8`, `80%` or `80` (percent): a fraction of 1. */
export function parseMinPass(raw: string): number | undefined {
  const text = raw.trim();
  const percent = text.endsWith('%') || Number(text) > 1;
  const value = Number(text.replace(/%$/, ''));
  if (!Number.isFinite(value) || value < 0) return undefined;
  const fraction = percent ? value / 100 : value;
  return fraction <= 1 ? fraction : undefined;
}
