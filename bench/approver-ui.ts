/**
 * `npx tsx bench/approver-ui.ts [steps]`: how long the approvers' page takes to show a run of
 * 500 steps (default): the server's render of the run page (src/ui/run-page.ts) from the events
 * and step records such a run has, and Chromium's load of that page with its stylesheet and
 * script (parse, layout, paint). The Temporal reads before the render (three queries and the
 * start event) are not in it: they do not grow with the page. Prints JSON; BENCHMARKS.md
 * ("The approvers' page") quotes it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import type { RunEvent } from '../src/common/events';
import type { RunStatus, StepRecord } from '../src/common/wire';
import type { RunView } from '../src/ui/run-reads';
import { runPage } from '../src/ui/run-page';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ROUNDS = 7;
const ORIGIN = 'http://approvers.bench';

/** What a run of `steps` steps has: per step a model call, its text in three deltas, a tool call and result, a step record. */
export function syntheticRun(steps: number): RunView {
  const events: Array<{ offset: number; event: RunEvent }> = [];
  const records: StepRecord[] = [];
  const push = (event: RunEvent) => events.push({ offset: events.length, event });
  for (let step = 1; step <= steps; step++) {
    push({ type: 'model_call', step });
    for (const delta of [`Step ${step}: `, 'searching the notes ', `for "line ${step}" again.`]) push({ type: 'text', step, attempt: 1, delta });
    push({ type: 'tool_call', step, id: `call_${step}`, name: 'grep', input: { pattern: `line ${step}`, path: '.' } });
    push({ type: 'tool_result', step, id: `call_${step}`, name: 'grep', isError: false, preview: step % 5 ? `notes.md:${step}: line ${step}` : `${'notes.md: a longer result line\n'.repeat(9)}` });
    const used = { iterations: step, inputTokens: step * 900, outputTokens: step * 40, costUsd: step * 0.0011 };
    const snapshot = { iterations: 600 - step, tokens: null, costUsd: null, wallClockMs: null, used };
    records.push({ step_id: step, reason: 'next_turn', budget_before: snapshot, budget_after: snapshot, evidence_delta: 1, tools: ['grep'], message_count: step * 2 + 1 });
    push({ type: 'step', record: records.at(-1) });
  }
  const status: RunStatus = {
    phase: 'awaiting_approval',
    iteration: steps,
    maxIterations: 600,
    pendingPermissions: [{ requestId: '5e1f0a2b-1', toolCallId: 'call_write', tool: 'write_file', input: { file_path: 'summary.md', content: 'done\n' }, requestedAt: new Date().toISOString(), deadline: new Date(Date.now() + 900_000).toISOString() }],
    backgroundJobs: [],
    usage: { inputTokens: steps * 900, outputTokens: steps * 40 },
    model: 'bench-model',
    budgetLeft: `budget left: ${600 - steps} iterations`,
    queuedFollowUps: 0,
    sandbox: { network: 'none', workspace: 'read-write', readOnlyPaths: [], enforcement: 'bubblewrap' },
  };
  const start = { prompt: 'Search the notes many times', workspace: '/tmp/bench-workspace', model: 'bench-model' };
  const facts = { workspace: start.workspace, model: start.model, sandbox: status.sandbox };
  return { workflowId: 'bench-run', execution: 'RUNNING', prompt: start.prompt, start, facts, startTime: new Date(), status, steps: records, events, nextOffset: events.length, problems: [], diff: { kind: 'none', why: 'the bench keeps no checkpoints' }, stepDiffs: new Map() };
}

async function main(): Promise<void> {
  const steps = Number(process.argv[2] ?? 500);
  const run = syntheticRun(steps);
  const context = { csrf: 'bench-csrf', namespace: 'default', temporalUiPort: 8233 };
  const renders: number[] = [];
  let html = '';
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    html = runPage(run, context);
    renders.push(performance.now() - t0);
  }
  const stat = (name: string) => readFileSync(path.join(__dirname, '../src/ui/static', name));
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // The page as the server sends it; the live stream stays closed (no server behind it).
    await page.route(`${ORIGIN}/**`, (route) => {
      const url = new URL(route.request().url());
      if (url.pathname === '/static/app.css') return route.fulfill({ body: stat('app.css'), contentType: 'text/css' });
      if (url.pathname === '/static/run.js') return route.fulfill({ body: stat('run.js'), contentType: 'text/javascript' });
      if (url.pathname.endsWith('/events')) return route.fulfill({ status: 204 });
      return route.fulfill({ body: html, contentType: 'text/html; charset=utf-8' });
    });
    const loads: number[] = [];
    for (let i = 0; i < ROUNDS + 1; i++) {
      await page.goto(`${ORIGIN}/runs/bench-run`, { waitUntil: 'load' });
      const load = await page.evaluate(() => {
        // In the browser: the navigation's own timing entry (typed by hand, the bench has no DOM types).
        type Navigation = { loadEventEnd: number; startTime: number };
        const [nav] = (performance as unknown as { getEntriesByType(type: string): Navigation[] }).getEntriesByType('navigation');
        return nav!.loadEventEnd - nav!.startTime;
      });
      if (i > 0) loads.push(load); // the first is a warm-up
    }
    const shown = { stepHeadings: await page.locator('#log h3.step').count(), toolCalls: await page.locator('#log .tool').count(), stepRows: await page.locator('table.steps tbody tr').count() };
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    console.log(
      JSON.stringify(
        {
          steps,
          events: run.events.length,
          ...shown,
          pageBytes: Buffer.byteLength(html),
          serverRenderMsMedian: Number(median(renders).toFixed(1)),
          browserLoadMsMedian: Number(median(loads).toFixed(0)),
          browserLoadMsMax: Number(Math.max(...loads).toFixed(0)),
          rounds: ROUNDS,
        },
        null,
        2,
      ),
    );
  } finally {
    await browser.close();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
