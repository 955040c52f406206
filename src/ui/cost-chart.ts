import type { StepRecord } from '../common/wire';
import { h, type Html } from './page-html';

const W = 600;
const H = 160;
const PAD = 28;

/**
 * Tokens and cost used so far, after each step, as an inline SVG (two lines, each on its own
 * scale; "unpriced" when the model has no price): no chart library, no script, nothing the CSP has to allow.
 */
export function costChart(steps: StepRecord[], unpriced = false): Html {
  if (steps.length < 2) return h``;
  const tokens = steps.map((s) => s.budget_after.used.inputTokens + s.budget_after.used.outputTokens);
  const cost = steps.map((s) => s.budget_after.used.costUsd);
  const x = (i: number) => PAD + (i * (W - 2 * PAD)) / (steps.length - 1);
  const line = (values: number[]) => {
    const max = Math.max(...values) || 1;
    return values.map((v, i) => `${x(i).toFixed(1)},${(H - PAD - (v / max) * (H - 2 * PAD)).toFixed(1)}`).join(' ');
  };
  const lastTokens = tokens.at(-1) ?? 0;
  const lastCost = cost.at(-1) ?? 0;
  return h`<figure class="chart"><svg viewBox="0 0 ${W} ${H}" role="img" aria-label="tokens and cost over ${steps.length} steps">
<line x1="${PAD}" y1="${H - PAD}" x2="${W - PAD}" y2="${H - PAD}" stroke="#999"/>
<polyline points="${line(tokens)}" fill="none" stroke="#2563eb" stroke-width="2"/>
<polyline points="${line(cost)}" fill="none" stroke="#dc2626" stroke-width="2" stroke-dasharray="5 3"/>
<text x="${PAD}" y="16" font-size="12" fill="#2563eb">tokens: ${lastTokens.toLocaleString('en')}</text>
<text x="${W - PAD}" y="16" font-size="12" fill="#dc2626" text-anchor="end">cost: ${unpriced && lastCost === 0 ? 'unpriced' : `$${lastCost.toFixed(4)}`}</text>
<text x="${PAD}" y="${H - 8}" font-size="11" fill="#666">step ${steps[0]?.step_id ?? 1}</text>
<text x="${W - PAD}" y="${H - 8}" font-size="11" fill="#666" text-anchor="end">step ${steps.at(-1)?.step_id ?? steps.length}</text>
</svg><figcaption>used after each step: tokens (solid), cost (dashed)</figcaption></figure>`;
}
