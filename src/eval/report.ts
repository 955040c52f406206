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
  const mixed = results.some((r) => r.mode !== 'loop');
  const rows = [...results]
    .sort((a, b) => a.task.localeCompare(b.task) || a.mode.localeCompare(b.mode) || a.trial - b.trial)
    .map((r) => [
      r.task,
      String(r.trial),
      ...(mixed ? [r.mode] : []),
      r.pass ? styled('pass', pc.green) : styled('FAIL', pc.red),
      String(r.iterations),
      (r.inputTokens + r.outputTokens).toLocaleString('en-US'),
      seconds(r.wallMs),
      r.stopReason,
      r.workflowId,
    ]);
  const table = formatTable(['TASK', 'TRIAL', ...(mixed ? ['MODE'] : []), 'PASS', 'ITER', 'TOKENS', 'WALL', 'STOP', 'WORKFLOW'], rows);
  const s = summarise(results);
  const total = `passed ${s.passed}/${s.trials} (${Math.round(s.passRate * 100)}%) · ${s.iterations} iterations · ${s.tokens.toLocaleString('en-US')} tokens · ${seconds(s.wallMs)} of runs`;
  // Modes side by side have their totals each (a sum over both would count the baseline as the loop's).
  return mixed ? `${table}\n\n${formatComparison(results)}` : `${table}\n${pc.bold(total)}`;
}

/** Each mode's results apart: `{ loop, 'model-alone' }`, the modes that ran. */
export function summariseByMode(results: TrialResult[]): Partial<Record<TrialResult['mode'], EvalSummary>> {
  const modes = [...new Set(results.map((r) => r.mode))];
  return Object.fromEntries(modes.map((mode) => [mode, summarise(results.filter((r) => r.mode === mode))]));
}

/** One row a task, the loop's and the model alone's passes side by side, then the totals and their ratio. */
export function formatComparison(results: TrialResult[]): string {
  const tasks = [...new Set(results.map((r) => r.task))].sort();
  const cell = (task: string, mode: TrialResult['mode']) => {
    const runs = results.filter((r) => r.task === task && r.mode === mode);
    if (runs.length === 0) return '-';
    const passed = runs.filter((r) => r.pass).length;
    const text = `${passed}/${runs.length}${runs.length === 1 ? ` ${runs[0]?.stopReason}` : ''}`;
    return passed > 0 ? styled(text, pc.green) : text;
  };
  const peer = results.some((r) => r.mode === 'mini-swe-agent');
  const table = formatTable(
    ['TASK', 'LOOP', 'MODEL ALONE', ...(peer ? ['MINI-SWE-AGENT'] : [])],
    tasks.map((task) => [task, cell(task, 'loop'), cell(task, 'model-alone'), ...(peer ? [cell(task, 'mini-swe-agent')] : [])]),
  );
  const by = summariseByMode(results);
  const loop = by.loop?.passed ?? 0;
  const alone = by['model-alone']?.passed ?? 0;
  const ratio = alone > 0 ? ` · loop ÷ model alone ${(loop / alone).toFixed(2)}` : '';
  return `${table}\n${pc.bold(`loop ${loop}/${by.loop?.trials ?? 0} · model alone ${alone}/${by['model-alone']?.trials ?? 0}${ratio}`)}`;
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
