/**
 * `npx tsx bench/approver-ui.ts [steps]`: how long the approvers' page takes to show a run of
 * 500 steps (default) that waits for a human, in Chromium, against its own dev server, worker and
 * scripted model. Prints the figures as JSON; BENCHMARKS.md ("The approvers' page") quotes them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { statusQuery } from '../src/common/contract';
import { startUiServer } from '../src/ui/ui-server';
import { readRun } from '../src/ui/run-reads';
import { runPage } from '../src/ui/run-page';
import { productBundle, startModel, startServer, startWorker } from './setup';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ROUNDS = 5;

async function main(): Promise<void> {
  const steps = Number(process.argv[2] ?? 500);
  const [server, bundle, model] = await Promise.all([startServer(), productBundle(), startModel()]);
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'bareagent-ui-bench-'));
  writeFileSync(path.join(workspace, 'notes.md'), '# Notes\nline one\nline two\n');
  model.setScenario('ui-bench', (_body, index) => {
    if (index < steps - 1) return { text: `Step ${index + 1}: reading the notes again.`, toolCalls: [{ id: `call_${index}`, name: 'read_file', arguments: { file_path: 'notes.md' } }] };
    if (index === steps - 1) return { text: 'Now writing the summary.', toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { file_path: 'summary.md', content: 'done\n' } }] };
    return undefined;
  });
  // queryRun (the CLI's reader, which the page uses) reads these.
  process.env.TEMPORAL_ADDRESS = server.address;
  process.env.BAREAGENT_WORKFLOW_BUNDLE = bundle.codePath;
  const taskQueue = `ui-bench-${Date.now()}`;
  const worker = await startWorker(server, model, { taskQueue, bundle });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const token = 'bench-token-0123456789abcdef';
  const ui = await startUiServer({ client: server.client, token, host: '127.0.0.1', port: 0, taskQueue, temporalUiPort: 8233 });
  try {
    const started = Date.now();
    const handle = await server.client.workflow.start('agentRun', {
      taskQueue,
      workflowId: `ui-bench-${Date.now()}`,
      args: [{ prompt: 'Read the notes many times', model: 'ui-bench', workspace, permissionMode: 'default', maxIterations: steps + 10 }],
    });
    for (;;) {
      const status = await handle.query(statusQuery);
      if (status.pendingPermissions.length) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const runSeconds = (Date.now() - started) / 1000;

    const run = await readRun(server.client, handle.workflowId);
    const renders: number[] = [];
    let bytes = 0;
    for (let i = 0; i < ROUNDS; i++) {
      const t0 = performance.now();
      bytes = runPage(run, { csrf: 'x', namespace: 'default', temporalUiPort: 8233 }).length;
      renders.push(performance.now() - t0);
    }

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${ui.url}/?token=${token}`);
    const loads: Array<{ response: number; load: number }> = [];
    for (let i = 0; i < ROUNDS + 1; i++) {
      await page.goto(`${ui.url}/runs/${handle.workflowId}`, { waitUntil: 'load' });
      const timing = await page.evaluate(() => {
        // In the browser: the navigation's own timing entry (typed here by hand, the bench has no DOM types).
        type Navigation = { requestStart: number; responseEnd: number; loadEventEnd: number; startTime: number };
        const [nav] = (performance as unknown as { getEntriesByType(type: string): Navigation[] }).getEntriesByType('navigation');
        return { response: nav!.responseEnd - nav!.requestStart, load: nav!.loadEventEnd - nav!.startTime };
      });
      if (i > 0) loads.push(timing); // the first is a warm-up
    }
    const shown = { stepHeadings: await page.locator('#log h3.step').count(), stepRows: await page.locator('table.steps tbody tr').count() };
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    const figures = {
      steps: run.steps.length,
      events: run.events.length,
      ...shown,
      runSeconds,
      pageBytes: bytes,
      renderMsMedian: Number(median(renders).toFixed(1)),
      serverResponseMsMedian: Number(median(loads.map((l) => l.response)).toFixed(0)),
      browserLoadMsMedian: Number(median(loads.map((l) => l.load)).toFixed(0)),
      browserLoadMsMax: Number(Math.max(...loads.map((l) => l.load)).toFixed(0)),
      rounds: ROUNDS,
    };
    console.log(JSON.stringify(figures, null, 2));
    await handle.cancel();
  } finally {
    await browser.close();
    await ui.close();
    await worker.stop();
    await model.close();
    await server.stop();
    bundle.dispose();
    rmSync(workspace, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
