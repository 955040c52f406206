import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { decidePermissionUpdate, statusQuery } from '../../src/common/contract';
import { startApproverUi, type ApproverUi } from '../support/approver-ui';
import { cliEnv } from '../support/cli';
import { launchChromium } from '../support/browser';
import { Harness, TEST_WIRE } from '../support/harness';
import { pendingRequest, waitFor } from '../support/wait-for';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * The approvers' page (`bareagent ui`, its own process) in a real browser (test/support/browser.ts)
 * driven by playwright-core, against the shared dev server, a worker and the scripted model.
 */
const ARTIFACTS = path.resolve(__dirname, '../../artifacts');
const WAIT = { timeout: 20_000 };
// 3,000 blank braille patterns push the tail past any fixed box; the tail also hides a bidi mark, a soft hyphen and a tag character.
const PADDED = `ls -la${'\u2800'.repeat(3000)}; echo PWNED > proof #\u061c\u00ad\u{e0041}`;
const HOSTILE_CONTENT = '<script>window.__xss=3</script><img src=x onerror="window.__xss=4">\u001b[31m red \u202eevil';

// The final answer: Markdown to render, and HTML that must stay text.
const ANSWER = '## Done\n\n- **notes.md** written\n- `build/` removed\n\n<script>window.__xss=5</script><img src=x onerror="window.__xss=6">';

let h: Harness;
let ui: ApproverUi;
let hooks: WebhookReceiver;
let browser: Browser;
let context: BrowserContext;
const figures: Record<string, unknown> = {};

beforeAll(async () => {
  // The webhook receiver is on loopback: the worker's egress policy refuses it unless the operator allows it (test/security/egress.test.ts).
  process.env.BAREAGENT_WORKER_EGRESS_ALLOW = '127.0.0.1';
  h = await Harness.create({
    'ui-approve': [
      { text: 'Writing the file.', toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { file_path: 'approved.txt', content: 'approved in the browser\n' } }] },
      { text: 'Wrote approved.txt.' },
      // The fork's first model call.
      { text: 'Forked answer.' },
    ],
    'ui-guarded': [
      { toolCalls: [{ id: 'call_guarded', name: 'write_file', arguments: { file_path: 'guarded.txt', content: 'no\n' } }] },
      { text: 'Not written.' },
    ],
    'ui-stream': [
      {
        text: 'Counting slowly: one two three four five six seven eight',
        chunks: ['Counting slowly: ', 'one ', 'two ', 'three ', 'four ', 'five ', 'six ', 'seven ', 'eight'],
        chunkDelayMs: 1000,
      },
    ],
    'ui-padded': [
      { toolCalls: [{ id: 'call_pad', name: 'bash', arguments: { command: PADDED } }] },
      { text: 'Padded, denied.' },
    ],
    'ui-stale': [
      { toolCalls: [{ id: 'X', name: 'bash', arguments: { command: 'mkdir -p build' } }] },
      { toolCalls: [{ id: 'X', name: 'bash', arguments: { command: 'echo PWNED > proof' } }] },
      { text: 'Stale, refused.' },
    ],
    'ui-context': [
      { text: 'First I write the notes.', toolCalls: [{ id: 'call_notes', name: 'write_file', arguments: { file_path: 'notes.md', content: 'line one\nline <b>two</b>\n' } }] },
      { text: 'Now the build folder has to go.', toolCalls: [{ id: 'call_rm', name: 'bash', arguments: { command: 'rm -rf build' } }] },
      { text: ANSWER },
    ],
    'ui-hostile': [
      {
        text: 'Look: <img src=x onerror="window.__xss=1"> <script>window.__xss=2</script>',
        toolCalls: [{ id: 'call_hostile', name: 'write_file', arguments: { file_path: 'page.html', content: HOSTILE_CONTENT } }],
      },
      { text: 'Denied, fine.' },
    ],
  });
  hooks = await WebhookReceiver.start();
  ui = await startApproverUi({ ...cliEnv(h), BAREAGENT_WORKFLOW_BUNDLE: h.env.bundlePath });
  // The worker links its webhooks to the page (read when the worker is created).
  process.env.BAREAGENT_UI_URL = ui.url;
  try {
    await h.startWorker({ notifyWebhook: hooks.url() });
  } finally {
    delete process.env.BAREAGENT_UI_URL;
  }
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // Sign in once, as an approver does with the link `bareagent ui` printed.
  const login = await context.newPage();
  await login.goto(ui.loginUrl);
  expect(new URL(login.url()).search).toBe('');
  await login.close();
});

afterAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  writeFileSync(path.join(ARTIFACTS, 'approver-ui-figures.json'), `${JSON.stringify(figures, null, 2)}\n`);
  await browser?.close();
  await ui?.stop();
  await hooks?.close();
  await h?.close();
});

async function newPage(width = 1280): Promise<Page> {
  const page = await context.newPage();
  await page.setViewportSize({ width, height: width < 600 ? 844 : 900 });
  page.setDefaultTimeout(WAIT.timeout);
  page.on('dialog', (dialog) => {
    throw new Error(`a dialog opened: ${dialog.message()}`);
  });
  return page;
}

async function waitingRun(model: string, workspace: string): Promise<string> {
  const handle = await h.start({ prompt: `Task for ${model}: do the thing`, model, workspace, permissionMode: 'default' });
  await pendingRequest(handle);
  return handle.workflowId;
}

const inboxItem = (page: Page, workflowId: string) => page.locator(`section.item[data-run="${workflowId}"]`);

test('the inbox lists a waiting run; Approve in the inbox lets its write happen', async () => {
  const workspace = h.workspace();
  const workflowId = await waitingRun('ui-approve', workspace);
  // Weighed cold: a context of its own (signed in, nothing cached), every response's headers and body.
  const cold = await browser.newContext({ storageState: await context.storageState() });
  const coldPage = await cold.newPage();
  const transfers: Array<Promise<number>> = [];
  coldPage.on('requestfinished', (request) => transfers.push(request.sizes().then((s) => s.responseBodySize + s.responseHeadersSize)));
  await coldPage.goto(`${ui.url}/`, { waitUntil: 'networkidle' });
  await inboxItem(coldPage, workflowId).waitFor(WAIT);
  const sizes = await Promise.all(transfers);
  await cold.close();
  figures.inboxBytes = sizes.reduce((a, b) => a + b, 0);
  figures.inboxRequests = sizes.length;
  expect(figures.inboxBytes).toBeLessThanOrEqual(200 * 1024);

  const page = await newPage();
  await page.goto(`${ui.url}/`);
  const item = inboxItem(page, workflowId);
  await item.waitFor(WAIT);
  await expect(item.innerText()).resolves.toContain('Task for ui-approve: do the thing');
  await expect(item.innerText()).resolves.toContain('write_file approved.txt');
  await expect(item.innerText()).resolves.toContain('"content": "approved in the browser\\n"');
  // The run's title is its prompt, not its generated id.
  await expect(item.getByRole('link').first().innerText()).resolves.toBe('Task for ui-approve: do the thing');
  await item.getByRole('button', { name: 'Approve', exact: true }).click();
  await page.getByRole('status').getByText(new RegExp(`^Allowed [0-9a-f]{8}-1 in ${workflowId}\\.$`)).waitFor(WAIT);
  // The answer leads to the run's page, which goes on live, at the run's own address (a reload reads, never answers again).
  await page.getByRole('heading', { name: 'Task for ui-approve: do the thing' }).waitFor(WAIT);
  await page.locator('#log .answer').getByText('Wrote approved.txt.').waitFor(WAIT);
  expect(new URL(page.url()).pathname).toBe(`/runs/${workflowId}`);
  const result = await h.client.workflow.getHandle(workflowId).result();
  expect(result.text).toBe('Wrote approved.txt.');
  expect(readFileSync(path.join(workspace, 'approved.txt'), 'utf8')).toBe('approved in the browser\n');

  // The finished run's page: its steps, and a fork from one of them.
  await page.goto(`${ui.url}/runs/${workflowId}`);
  await page.locator('table.steps tbody tr').nth(1).waitFor(WAIT);
  await page.getByRole('combobox').selectOption('1');
  await page.getByRole('textbox', { name: 'fork prompt' }).fill('Try it another way');
  await page.getByRole('button', { name: 'Fork' }).click();
  const started = await page.getByRole('status').innerText();
  const forkId = /Started (\S+), a fork of/.exec(started)?.[1];
  expect(started).toContain(`a fork of ${workflowId} at step 1.`);
  const fork = await h.client.workflow.getHandle(forkId as string).result();
  expect(fork.text).toBe('Forked answer.');
  await page.close();
});

test("a question comes with its context: the agent's words before it, where it runs, the diff so far; the answer renders as Markdown, its HTML inert", async () => {
  const workspace = h.workspace();
  const handle = await h.start({ prompt: 'Tidy the <b>project</b>: notes, then the build folder', model: 'ui-context', workspace, permissionMode: 'default' });
  const first = await pendingRequest(handle);
  await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: first.requestId, decision: 'allow' }] });
  await waitFor(async () => (await handle.query(statusQuery)).pendingPermissions.find((p) => p.requestId !== first.requestId), 'the second question');
  const page = await newPage();
  await page.goto(`${ui.url}/`);
  const item = inboxItem(page, handle.workflowId);
  await item.waitFor(WAIT);
  // The title: the prompt, escaped.
  await expect(item.getByRole('link').first().innerText()).resolves.toBe('Tidy the <b>project</b>: notes, then the build folder');
  const card = item.locator('.card');
  await expect(card.locator('blockquote.said').innerText()).resolves.toContain('Now the build folder has to go.');
  await expect(card.locator('.question').innerText()).resolves.toContain('rm -rf build');
  const where = await card.locator('.where').innerText();
  expect(where).toContain(`workspace ${realpathSync(workspace)}`);
  expect(where).toMatch(new RegExp(`sandbox .+ · network none · workspace read-write · model ui-context · provider ${TEST_WIRE} · mode default`));
  // The diff since the run started, inline and folded: its summary names the file, its lines open with a click.
  const diff = card.locator('details.diff');
  await expect(diff.locator('summary').innerText()).resolves.toBe('Changes since the run started: 1 file changed: notes.md (new, +2 −0)');
  expect(await diff.locator('pre.diff').isVisible()).toBe(false);
  await diff.locator('summary').click();
  await diff.locator('pre.diff .d-add').getByText('+line <b>two</b>').waitFor(WAIT);
  await page.screenshot({ path: path.join(ARTIFACTS, 'approver-ui-question-context.png'), fullPage: true });

  // Approve: the run's page, live, with its cost unpriced (the scripted model has no price).
  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  await page.getByRole('status').getByText(/^Allowed [0-9a-f]{8}-2 in /).waitFor(WAIT);
  await expect(page.locator('.cost').innerText()).resolves.toMatch(/^unpriced \(ui-context has no price/);
  // The final answer arrives live and renders as Markdown; its HTML is text and does not run.
  const answer = page.locator('#log .answer');
  await answer.getByRole('heading', { name: 'Done' }).waitFor(WAIT);
  await expect(answer.locator('li strong').innerText()).resolves.toBe('notes.md');
  await answer.getByText('<script>window.__xss=5</script><img src=x onerror="window.__xss=6">').waitFor(WAIT);
  // Shown once: the streamed text it was is gone.
  expect(await page.locator('#log').getByText('## Done', { exact: false }).count()).toBe(0);
  expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
  expect(await page.locator('main script, main img, main iframe').count()).toBe(0);
  await handle.result();

  // The closed run, read again: the same answer rendered, the whole diff, each step's own.
  await page.goto(`${ui.url}/runs/${handle.workflowId}`);
  await page.locator('#log .answer h2').getByText('Done').waitFor(WAIT);
  await expect(page.locator('main > details.diff summary').innerText()).resolves.toBe('Changes since the run started: 1 file changed: notes.md (new, +2 −0)');
  await expect(page.locator('table.steps tbody tr').first().locator('details.diff summary').innerText()).resolves.toBe('Changes in step 1: 1 file changed: notes.md (new, +2 −0)');
  await expect(page.locator('table.steps tbody tr').first().locator('td').nth(4).innerText()).resolves.toBe('unpriced');
  expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
  await page.screenshot({ path: path.join(ARTIFACTS, 'approver-ui-run-answer.png'), fullPage: true });
  await page.close();
});

test('a streaming run reads live: its text appears before the run ends, and the stream resumes after Last-Event-ID', async () => {
  const handle = await h.start({ prompt: 'Count slowly', model: 'ui-stream', workspace: h.workspace(), permissionMode: 'default' });
  let endedAt = 0;
  const ended = handle.result().then(() => (endedAt = Date.now()));
  const page = await newPage(390);
  await page.goto(`${ui.url}/runs/${handle.workflowId}`);
  const first = await page.locator('#log').innerText();
  expect(first).not.toContain('eight');
  await page.locator('#log').getByText(/Counting slowly: one two/).waitFor(WAIT);
  const sawTextAt = Date.now();
  await ended;
  expect(sawTextAt).toBeLessThan(endedAt);
  await page.locator('#log').getByText('Counting slowly: one two three four five six seven eight', { exact: true }).waitFor(WAIT);
  await page.locator('#live').getByText('the run has ended').waitFor(WAIT);
  await page.close();

  // A browser that reconnects sends the last id it saw: the stream goes on after it, nothing repeated.
  const response = await fetch(`${ui.url}/runs/${handle.workflowId}/events?after=-1`, { headers: { authorization: `Bearer ${ui.token}`, 'last-event-id': '3' } });
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const body = await response.text();
  const ids = [...body.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  expect(ids.length).toBeGreaterThan(0);
  expect(Math.min(...ids)).toBe(4);
  expect(body).toContain('event: end');
});

test('what the agent wrote renders as text; a link from a webhook opens the run, and Deny answers it', async () => {
  const workspace = h.workspace();
  const workflowId = await waitingRun('ui-hostile', workspace);
  const page = await newPage();
  await page.goto(`${ui.url}/`);
  const item = inboxItem(page, workflowId);
  await item.waitFor(WAIT);
  const shown = await item.locator('pre.input').innerText();
  expect(shown).toContain('<script>window.__xss=3</script><img src=x onerror=\\"window.__xss=4\\">');
  // Control and bidi characters are written out, not obeyed.
  expect(shown).toContain('\\u001b[31m red \\u202eevil');
  await page.screenshot({ path: path.join(ARTIFACTS, 'approver-ui-inbox-desktop.png'), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(ARTIFACTS, 'approver-ui-inbox-phone.png'), fullPage: true });

  // The webhook's link, followed from another site (here a data: page): click 1 opens the run, click 2 answers.
  const hook = await waitFor(async () => hooks.received.find((r) => r.body?.workflowId === workflowId), 'the webhook');
  expect(hook.body.page).toBe(`${ui.url}/runs/${workflowId}`);
  await page.goto(`data:text/html,<a href="${hook.body.page}">open the run</a>`);
  await page.getByRole('link', { name: 'open the run' }).click();
  await page.getByRole('heading', { name: 'Task for ui-hostile: do the thing' }).waitFor(WAIT);
  await page.locator('#log').getByText('Look: <img src=x onerror="window.__xss=1"> <script>window.__xss=2</script>').waitFor(WAIT);
  expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
  expect(await page.locator('main script, main img, main iframe').count()).toBe(0);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(ARTIFACTS, 'approver-ui-run-phone.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: path.join(ARTIFACTS, 'approver-ui-run-desktop.png'), fullPage: true });

  const card = page.locator('#pending .card');
  await card.getByRole('textbox', { name: 'reason' }).fill('not in this repository');
  await card.getByRole('button', { name: 'Deny' }).click();
  await page.getByRole('status').getByText(new RegExp(`^Denied [0-9a-f]{8}-1 in ${workflowId}\\.$`)).waitFor(WAIT);
  const result = await h.client.workflow.getHandle(workflowId).result();
  expect(result.text).toBe('Denied, fine.');
  expect(existsSync(path.join(workspace, 'page.html'))).toBe(false);
  await page.goto(`${ui.url}/runs/${workflowId}`);
  await page.locator('#log .decided.deny').getByText('denied: not in this repository (in the approvers\' page)').waitFor(WAIT);
  expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
  await page.close();
});

test('without the token every request is 401; a foreign Host is 403; an answer without the CSRF token or from another origin is refused', async () => {
  for (const url of [`${ui.url}/`, `${ui.url}/static/app.css`, `${ui.url}/runs/anything`, `${ui.url}/runs/anything/events`]) {
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(401);
  }
  expect((await fetch(`${ui.url}/?token=wrong-token-of-some-length`, { redirect: 'manual' })).status).toBe(401);
  expect((await fetch(`${ui.url}/`, { headers: { authorization: 'Bearer wrong-token-of-some-length' } })).status).toBe(401);
  expect((await fetch(`${ui.url}/`, { headers: { authorization: `Bearer ${ui.token}` } })).status).toBe(200);
  expect(await statusWithHost(`${ui.url}/`, 'rebound.example:80')).toBe(403);
  // The sign-in redirect stays on this site, whatever the path looks like.
  const login = await fetch(`${ui.url}//evil.example/?token=${ui.token}`, { redirect: 'manual' });
  expect(login.status).toBe(303);
  expect(login.headers.get('location')).toBe('/');
  expect(login.headers.get('set-cookie')).toMatch(/HttpOnly/i);
  expect(login.headers.get('set-cookie')).toMatch(/SameSite=Strict/i);
  expect((await fetch(`${ui.url}/`, { headers: { authorization: `Bearer ${ui.token}` } })).headers.get('content-security-policy')).toContain("script-src 'self'");

  const workflowId = await waitingRun('ui-guarded', h.workspace());
  const page = await newPage();
  await page.goto(`${ui.url}/runs/${workflowId}`);
  const csrf = await page.locator('#pending input[name=_csrf]').first().inputValue();
  const answer = `${ui.url}/runs/${workflowId}/answer`;
  const noCsrf = await context.request.post(answer, { form: { requestId: 'call_guarded', decision: 'allow' }, headers: { origin: ui.url } });
  expect(noCsrf.status()).toBe(403);
  const wrongCsrf = await context.request.post(answer, { form: { _csrf: 'x', requestId: 'call_guarded', decision: 'allow' }, headers: { origin: ui.url } });
  expect(wrongCsrf.status()).toBe(403);
  const otherOrigin = await context.request.post(answer, { form: { _csrf: csrf, requestId: 'call_guarded', decision: 'allow' }, headers: { origin: 'http://evil.example' } });
  expect(otherOrigin.status()).toBe(403);
  const handle = h.client.workflow.getHandle(workflowId);
  expect((await handle.query(statusQuery)).pendingPermissions.map((p) => p.toolCallId)).toEqual(['call_guarded']);

  // The page's own forms are taken: a follow-up is queued, then Cancel ends the run.
  await page.getByRole('textbox', { name: 'follow-up' }).fill('Also check the README');
  await page.getByRole('button', { name: 'Send follow-up' }).click();
  await page.getByRole('status').getByText(`Sent to ${workflowId}`).waitFor(WAIT);
  expect((await handle.query(statusQuery)).queuedFollowUps).toBe(1);
  await page.goto(`${ui.url}/runs/${workflowId}`);
  await page.getByRole('button', { name: 'Cancel the run' }).click();
  await page.getByRole('status').getByText(`Cancellation requested for ${workflowId}`).waitFor(WAIT);
  await expect(handle.result()).rejects.toThrow();
  expect((await handle.describe()).status.name).toBe('CANCELLED');
  await page.close();
});

test("with encryption on, the page decodes with the CLI's converter: an encrypted run's question and prompt read in the clear", async () => {
  const key = randomBytes(32).toString('base64');
  const encrypted = await Harness.create({
    'ui-encrypted': [{ toolCalls: [{ id: 'call_secret', name: 'write_file', arguments: { file_path: 'secret.txt', content: 'only with the key' } }] }, { text: 'ok' }],
  });
  const dataConverter = dataConverterFromEnv({ BAREAGENT_ENCRYPTION_KEY: key })!;
  await encrypted.startWorker({ dataConverter });
  const client = new Client({ connection: encrypted.client.connection, dataConverter });
  const page = await startApproverUi({ ...cliEnv(encrypted), BAREAGENT_WORKFLOW_BUNDLE: encrypted.env.bundlePath, BAREAGENT_ENCRYPTION_KEY: key });
  try {
    const handle = await client.workflow.start('agentRun', {
      taskQueue: encrypted.taskQueue,
      workflowId: `ui-encrypted-${Date.now()}`,
      args: [{ prompt: 'An encrypted prompt', model: 'ui-encrypted', workspace: encrypted.workspace(), permissionMode: 'default' }],
    });
    await pendingRequest(handle);
    const inbox = await (await fetch(`${page.url}/`, { headers: { authorization: `Bearer ${page.token}` } })).text();
    expect(inbox).toContain(handle.workflowId);
    expect(inbox).toContain('An encrypted prompt');
    expect(inbox).toContain('only with the key');
    await handle.terminate();
  } finally {
    await page.stop();
    await encrypted.close();
  }
});

function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers: { host, authorization: `Bearer ${ui.token}` } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
}

test('a command padded with 3,000 blanks shows its tail on the card, in a box that does not scroll, flagged', async () => {
  const workspace = h.workspace();
  const workflowId = await waitingRun('ui-padded', workspace);
  const page = await newPage(390);
  await page.goto(`${ui.url}/runs/${workflowId}`);
  const card = page.locator('#pending .card');
  const input = card.locator('pre.input');
  const shown = await input.innerText();
  expect(shown).toContain('ls -la\\u2800{×3000}; echo PWNED > proof #\\u061c\\xad\\u{e0041}');
  await card.getByText('⚠ contains hidden or blank-looking characters (shown escaped)').waitFor(WAIT);
  // Nothing of the input is below a scroll edge: the box is as tall as its text.
  const box = await input.evaluate((el) => {
    const style = (globalThis as unknown as { getComputedStyle(e: unknown): { overflowY: string; maxHeight: string } }).getComputedStyle(el);
    return { scroll: el.scrollHeight, client: el.clientHeight, overflow: style.overflowY, maxHeight: style.maxHeight };
  });
  expect(box).toMatchObject({ overflow: 'visible', maxHeight: 'none' });
  expect(box.scroll).toBeLessThanOrEqual(box.client + 1);
  await card.getByText(/; echo PWNED > proof/).last().scrollIntoViewIfNeeded();
  expect(await card.getByText(/; echo PWNED > proof/).last().isVisible()).toBe(true);
  await page.screenshot({ path: path.join(ARTIFACTS, 'approver-ui-padded-phone.png'), fullPage: true });
  await card.getByRole('button', { name: 'Deny' }).click();
  await page.getByRole('status').getByText(/^Denied /).waitFor(WAIT);
  expect((await h.client.workflow.getHandle(workflowId).result()).text).toBe('Padded, denied.');
  expect(existsSync(path.join(workspace, 'proof'))).toBe(false);
  await page.close();
});

test('a card shown before the question was decided and asked again under the same call id cannot approve the new call', async () => {
  const workspace = h.workspace();
  const workflowId = await waitingRun('ui-stale', workspace);
  const handle = h.client.workflow.getHandle(workflowId);
  // The first approver's inbox shows `mkdir -p build`; the inbox is not live, so the card stays as it was shown.
  const page = await newPage();
  await page.goto(`${ui.url}/`);
  const item = inboxItem(page, workflowId);
  await item.waitFor(WAIT);
  await expect(item.locator('pre.input').innerText()).resolves.toContain('mkdir -p build');
  const form = item.locator('form.answer');
  const stale = { requestId: await form.locator('input[name=requestId]').inputValue(), inputDigest: await form.locator('input[name=inputDigest]').inputValue(), csrf: await form.locator('input[name=_csrf]').inputValue() };
  // A second approver denies it; the model asks again under the same call id.
  await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: stale.requestId, decision: 'deny' }] });
  const reasked = await waitFor(async () => (await handle.query(statusQuery)).pendingPermissions.find((p) => p.requestId !== stale.requestId), 'the question asked again');
  expect(reasked).toMatchObject({ toolCallId: 'X', input: { command: 'echo PWNED > proof' } });

  // The first approver's click on the card it was shown.
  await item.getByRole('button', { name: 'Approve', exact: true }).click();
  await page.getByRole('status').getByText(/not waiting on request/).waitFor(WAIT);
  // The same card's digest sent with the new request id: refused by the run itself.
  const forged = await context.request.post(`${ui.url}/runs/${workflowId}/answer`, {
    form: { _csrf: stale.csrf, requestId: reasked.requestId, inputDigest: stale.inputDigest, decision: 'allow' },
    headers: { origin: ui.url },
  });
  expect(forged.status()).toBe(409);
  expect(await forged.text()).toContain('asks about another input than the one shown');
  // An answer with no digest at all: refused by the page.
  const blind = await context.request.post(`${ui.url}/runs/${workflowId}/answer`, { form: { _csrf: stale.csrf, requestId: reasked.requestId, decision: 'allow' }, headers: { origin: ui.url } });
  expect(blind.status()).toBe(409);
  expect(await blind.text()).toContain('names no input digest');
  expect((await handle.query(statusQuery)).pendingPermissions.map((p) => p.requestId)).toEqual([reasked.requestId]);
  expect(existsSync(path.join(workspace, 'proof'))).toBe(false);
  await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: reasked.requestId, decision: 'deny' }] });
  expect((await handle.result()).text).toBe('Stale, refused.');
  expect(existsSync(path.join(workspace, 'proof'))).toBe(false);
  await page.close();
});
