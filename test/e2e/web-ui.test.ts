import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/browser';
import { Harness } from '../support/harness';

/**
 * The README's "In the Web UI" promise, checked in a real browser (the system Chromium, else npm's
 * @sparticuz/chromium: test/support/browser.ts; driven by playwright-core) against the dev server's Web UI (v2.42): a finished run's page shows the
 * workflow's static summary and one summary per activity (`<model> · step <n>`, `read_file notes.md`).
 * The reads at a run's start run as local activities: the UI shows them as "Local Activity" rows
 * with their type and summary. A reply that only reads is read by its model call: the read is in
 * that row's result.
 */
const ARTIFACTS = path.resolve(__dirname, '../../artifacts');
const MODEL = 'web-ui-scripted-model';
const PROMPT = 'Summarise the notes for the web UI test\nThen list the workspace.\nKeep it short.';
const FIRST_LINE = 'Summarise the notes for the web UI test';
const WAIT = { timeout: 20_000 };

let h: Harness;
let browser: Browser | undefined;
beforeAll(async () => {
  h = await Harness.create({
    [MODEL]: [
      { text: 'Reading the notes.', toolCalls: [{ id: 'call_read', name: 'read_file', arguments: { file_path: 'notes.md' } }] },
      { toolCalls: [{ id: 'call_ls', name: 'bash', arguments: { command: 'ls' } }] },
      { text: 'The notes say hello; the workspace holds notes.md.' },
    ],
  });
  await h.startWorker();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

/** The event table's rows (one per activity in the compact view). */
const eventRows = (page: Page, text: string) => page.locator('tr[data-testid="event-summary-row"]').filter({ hasText: text });

test('a finished run shows its static summary and every activity summary in the Web UI', async () => {
  const workflowId = `web-ui-${Date.now()}`;
  const handle = await h.client.workflow.start('agentRun', {
    taskQueue: h.taskQueue,
    workflowId,
    args: [{ prompt: PROMPT, model: MODEL, workspace: h.workspace({ 'notes.md': '# Notes\nhello\n' }), permissionMode: 'auto' }],
    staticSummary: FIRST_LINE,
  });
  expect(await handle.result()).toMatchObject({ text: 'The notes say hello; the workspace holds notes.md.', iterations: 3 });

  const page = await browser!.newPage({ viewport: { width: 1600, height: 1500 } });
  page.setDefaultTimeout(WAIT.timeout);
  await page.goto(`http://127.0.0.1:${h.env.uiPort}/namespaces/default/workflows/${workflowId}`, { waitUntil: 'load' });
  // The UI redirects to .../<runId>/timeline (UI 2.54; /history before) and loads the history with several API calls.
  await page.waitForURL(/\/(history|timeline)$/);
  if (page.url().endsWith('/timeline')) await page.goto(page.url().replace(/\/timeline$/, '/history'), { waitUntil: 'load' });
  await page.waitForLoadState('networkidle', { timeout: 10_000 }).catch(() => undefined);
  await page.getByRole('heading', { name: workflowId }).waitFor(WAIT);
  await page.getByText('Completed', { exact: true }).first().waitFor(WAIT);

  // 1. UI 2.54 moved the timeline to a tab of its own: the event table below says what it showed, row by row.

  // 2. The compact event table: one "Activity" (or "Local Activity") row per activity, its type beside its summary.
  await page.getByRole('button', { name: 'Compact', exact: true }).click();
  await eventRows(page, `${MODEL} · step 3`).waitFor(WAIT);
  // What a new run reads once at its start, side by side as local activities (their order varies): workspace
  // settings, AGENTS.md (no MCP server: no listing), the listing for the system prompt, the checkpoint of step 0.
  const startRows: Array<[string, string, string?]> = [
    ['readWorkspaceSettings', 'workspace settings (.bareagent/)', 'Local Activity'],
    ['readProjectInstructions', 'project instructions (AGENTS.md)', 'Local Activity'],
    ['readRunEnvironment', 'workspace listing for the system prompt', 'Local Activity'],
    ['checkpointWorkspace', 'checkpoint of run start', 'Local Activity'],
  ];
  const loopRows: Array<[string, string, string?]> = [
    // Step 1's reply only reads: its model call read notes.md itself (in its result, `readAhead`), no row of its own.
    ['callModel', `${MODEL} · step 1`],
    ['callModel', `${MODEL} · step 2`],
    // The step's checkpoint is taken inside the bash activity (no row of its own).
    ['bash', 'bash ls'],
    ['callModel', `${MODEL} · step 3`],
  ];
  const expectedRows = [...startRows, ...loopRows];
  for (const [type, summary, kind = 'Activity'] of expectedRows) {
    const row = eventRows(page, summary);
    expect(await row.count()).toBe(1);
    const text = (await row.innerText()).replace(/\s+/g, ' ');
    expect(text).toContain(`${kind} Activity Type ${type} Summary ${summary}`);
  }
  expect(await eventRows(page, 'Activity Type').count()).toBe(expectedRows.length);
  // The read is in step 1's model call, as its result shows it when the row is opened.
  await eventRows(page, `${MODEL} · step 1`).click();
  await page.getByText('readAhead').first().waitFor(WAIT);
  expect(await page.getByText('# Notes').count()).toBeGreaterThan(0);
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, 'web-ui-run.png') });

  // 3. "All" view: the Workflow Execution Started event carries the static summary.
  await page.getByRole('button', { name: 'All', exact: true }).click();
  const startedRow = page.locator('tr[data-testid="event-summary-row"][data-eventid="1"]');
  await startedRow.waitFor(WAIT);
  expect((await startedRow.innerText()).replace(/\s+/g, ' ')).toContain(`Summary ${FIRST_LINE}`);

  // 4. "User Metadata" tab: the Summary holds the prompt's first line only, and "Current Details" the
  //    run's details (phase, iteration, budget, the newest checkpoint), each rendered in an iframe.
  //    (UI 2.54 no longer lists the events with metadata there: the event table above shows them.)
  await page.getByRole('tab', { name: 'User Metadata' }).click();
  await page.waitForURL(/\/user-metadata$/);
  const summaryFrame = page.locator('iframe:not([src*="iteration"])').first().contentFrame();
  await summaryFrame.getByText(FIRST_LINE, { exact: true }).waitFor(WAIT);
  expect((await summaryFrame.locator('body').innerText()).trim()).toBe(FIRST_LINE);
  await page
    .frameLocator('iframe[src*="iteration"]')
    .getByText(/completed · iteration 3.200 · budget left: 197 iterations · step 2 changed 0 files/)
    .waitFor(WAIT);
  await page.screenshot({ path: path.join(ARTIFACTS, 'web-ui-run-metadata.png') });
  await page.close();
}, 60_000);
