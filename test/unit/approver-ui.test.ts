import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RunEvent } from '../../src/common/events';
import { questionCard } from '../../src/ui/answer-forms';
import { blockHtml, frameFor } from '../../src/ui/conversation-html';
import { changeFor, foldEvents, textsBeforeQuestions } from '../../src/ui/conversation';
import { costLabel, diffHtml } from '../../src/ui/run-context-html';
import { Sessions } from '../../src/ui/session';
import { publicUrl, runPageUrl, uiSettingsFromEnv } from '../../src/connection/ui-settings';
import { loadUiToken } from '../../src/ui/ui-token';
import { visible } from '../../src/ui/visible-text';

describe('what the page shows of what the agent wrote', () => {
  test('control, bidi and zero-width characters are written out; newlines and tabs stay', () => {
    expect(visible('a\u001b[31mb\u202ec\u200bd\ne\tf\u0000')).toBe('a\\x1b[31mb\\u202ec\\u200bd\ne\tf\\x00');
  });

  test('a block escapes markup in text, tool names, inputs and results', () => {
    const blocks = foldEvents([
      { type: 'text', step: 1, attempt: 1, delta: '<img src=x onerror=alert(1)>' },
      { type: 'tool_call', step: 1, id: 'c"1', name: '<b>bash</b>', input: { command: '<script>alert(2)</script>' } },
      { type: 'tool_result', step: 1, id: 'c"1', name: 'bash', isError: false, preview: '</pre><script>alert(3)</script>' },
    ]);
    const html = blocks.map((b) => blockHtml(b).toString()).join('');
    expect(html).not.toMatch(/<(img|script|b)[\s>]/);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&lt;/pre&gt;&lt;script&gt;');
    // The model chose the call id: its element id is base64url, so it cannot break out of the attribute.
    expect(html).toContain(`id="c-${Buffer.from('c"1').toString('base64url')}"`);
  });

  test('the question card escapes the input and the request id, and carries the CSRF token', () => {
    const html = questionCard('run-1', { requestId: '"><script>', tool: 'bash', input: { command: 'rm -rf /tmp/x\u001b' } }, 'csrf-value').toString();
    expect(html).not.toContain('<script>');
    expect(html).toContain('&quot;rm -rf /tmp/x\\u001b&quot;');
    expect(html).not.toContain('\u001b');
    expect(html).toContain('name="_csrf" value="csrf-value"');
  });
});

/**
 * marked is an ES module, which jest's module system does not load: rendered in a process of its
 * own, as `bareagent ui` loads it (tsx).
 */
function markdownHtml(text: string): string {
  const script = `const m = require('./src/ui/markdown-html.ts'); m.loadMarkdown().then(() => process.stdout.write(JSON.stringify(m.markdownHtml(${JSON.stringify(text)}).toString())))`;
  return JSON.parse(execFileSync(process.execPath, ['-r', 'tsx/cjs', '-e', script], { cwd: path.resolve(__dirname, '../..'), encoding: 'utf8' })) as string;
}

describe("the model's answer as Markdown", () => {
  test('renders headings, lists, code and tables; raw HTML, scripts and event handlers stay text', () => {
    const html = markdownHtml('## Done\n\n1. `a<b>`\n\n<script>window.__xss=1</script>\n\nsee <img src=x onerror="window.__xss=2"> and <b onclick="x()">bold</b>\n\n| a |\n|---|\n| <i>1</i> |').toString();
    expect(html).toContain('<h2>Done</h2>');
    expect(html).toContain('<code>a&lt;b&gt;</code>');
    expect(html).toContain('&lt;script&gt;window.__xss=1&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=&quot;window.__xss=2&quot;&gt;');
    expect(html).toContain('<td>&lt;i&gt;1&lt;/i&gt;</td>');
    expect(html).not.toMatch(/<(script|img|b|i|iframe)[\s>]/);
  });

  test('links only to the web and mail; images are their text; hidden characters written out', () => {
    const html = markdownHtml('[x](javascript:alert(1)) [d](data:text/html,hi) [ok](https://example.com) ![pic](https://example.com/p.png) \u202eevil\u001b[2J').toString();
    expect(html).not.toContain('href="javascript');
    expect(html).not.toContain('href="data');
    expect(html).toContain('<a href="https://example.com" rel="noreferrer nofollow" target="_blank">ok</a>');
    expect(html).toContain('pic (https://example.com/p.png)');
    expect(html).toContain('\\u202eevil\\x1b[2J');
    expect(html).not.toMatch(/[\u202e\u001b]/);
  });
});

describe("a question's context", () => {
  test('a diff is folded, its names and lines escaped, its added and removed lines marked', () => {
    const text = 'diff --git a/<b>.txt b/<b>.txt\n--- a/<b>.txt\n+++ b/<b>.txt\n@@ -1 +1 @@\n-old\n+<script>x</script>\u001b[2J\n';
    const html = diffHtml({ kind: 'diff', fromStep: 0, toStep: 2, files: [{ path: '<b>.txt', status: 'M', added: 1, removed: 1 }], text, totalChars: text.length }, 'run-1', 'since the run started').toString();
    expect(html).toMatch(/^<details class="diff"><summary>Changes since the run started: 1 file changed: &lt;b&gt;.txt \(\+1 −1\)<\/summary>/);
    expect(html).toContain('<span class="d-add">+&lt;script&gt;x&lt;/script&gt;\\x1b[2J</span>');
    expect(html).toContain('<span class="d-del">-old</span>');
    expect(html).not.toMatch(/<(script|b)[\s>]/);
    const cut = diffHtml({ kind: 'diff', fromStep: 0, toStep: 2, files: [{ path: 'a', status: 'M', added: 1, removed: 0 }], text: '+a\n', totalChars: 90_000 }, 'run-1', 'since the run started').toString();
    expect(cut).toContain('<code>bareagent diff run-1 --step 2</code> prints it all');
  });

  test('cost: dollars by the price list, "unpriced" where the model has none', () => {
    expect(costLabel(0.0123, 0, 'gpt-4o')).toBe('$0.01');
    expect(costLabel(0, 3, 'scripted')).toBe('unpriced (scripted has no price: set "prices" in the run\'s input)');
    expect(costLabel(0, undefined, 'my-local-model')).toMatch(/^unpriced/);
    expect(costLabel(0.5, 2, 'gpt-4o')).toBe('$0.50 + 2 unpriced calls');
  });
});

describe('the conversation folded from events', () => {
  const events: RunEvent[] = [
    { type: 'model_call', step: 1 },
    { type: 'text', step: 1, attempt: 1, delta: 'Hel' },
    { type: 'text', step: 1, attempt: 1, delta: 'lo' },
    { type: 'tool_call', step: 1, id: 'call_1', name: 'bash', input: { command: 'ls' } },
    { type: 'permission_request', step: 1, requestId: 'q-1', toolCallId: 'call_1', tool: 'bash', input: { command: 'ls' }, deadline: '2030-01-01T00:00:00Z' },
    { type: 'permission_decided', step: 1, requestId: 'q-1', toolCallId: 'call_1', decision: 'allow', reason: 'fine' },
    { type: 'tool_result', step: 1, id: 'call_1', name: 'bash', isError: false, preview: 'a.txt' },
    { type: 'step', record: {} },
    { type: 'final', text: 'All **done**.', stopReason: 'final_answer' },
  ];

  test('text deltas join their turn, a result its call, a decision its question', () => {
    expect(foldEvents(events)).toEqual([
      { kind: 'step', step: 1 },
      { kind: 'text', step: 1, attempt: 1, text: 'Hello' },
      { kind: 'tool', id: 'call_1', name: 'bash', input: { command: 'ls' }, result: { isError: false, preview: 'a.txt' } },
      { kind: 'asked', requestId: 'q-1', tool: 'bash', input: { command: 'ls' }, deadline: '2030-01-01T00:00:00Z', decided: { decision: 'allow', reason: 'fine' } },
      { kind: 'final', text: 'All **done**.', stopReason: 'final_answer' },
    ]);
  });

  test('the answer takes the place of the text it streamed as, shown once', () => {
    const answered = foldEvents([...events.slice(0, -1), { type: 'model_call', step: 2 }, { type: 'text', step: 2, attempt: 1, delta: '# Fixed\n\n- a **b**' }, { type: 'final', text: '# Fixed\n\n- a **b**', stopReason: 'final_answer' }]);
    expect(answered.filter((b) => b.kind === 'text').map((b) => (b as { text: string }).text)).toEqual(['Hello']);
    expect(answered.at(-1)).toEqual({ kind: 'final', text: '# Fixed\n\n- a **b**', stopReason: 'final_answer' });
    expect(blockHtml(answered.at(-1)!).toString()).toMatch(/^<div class="final"><p class="note final">Finished \(final_answer\)\.<\/p><div class="answer">/);
  });

  test("the agent's last words before each question, a restarted attempt's text dropped", () => {
    const said = textsBeforeQuestions([
      { type: 'text', step: 1, attempt: 1, delta: 'half a thou' },
      { type: 'attempt_restart', step: 1, attempt: 2 },
      { type: 'text', step: 1, attempt: 2, delta: 'I will ' },
      { type: 'text', step: 1, attempt: 2, delta: 'delete build/.' },
      { type: 'permission_request', step: 1, requestId: 'q-1', toolCallId: 'c', tool: 'bash', input: { command: 'rm -rf build' }, deadline: '2030-01-01T00:00:00Z' },
      { type: 'permission_request', step: 2, requestId: 'q-2', toolCallId: 'd', tool: 'bash', input: { command: 'ls' }, deadline: '2030-01-01T00:00:00Z' },
    ]);
    expect(said.before('q-1')).toBe('I will delete build/.');
    // No new text since: the same words stand before the next question.
    expect(said.before('q-2')).toBe('I will delete build/.');
  });

  test('a live frame appends into the block the page holds, or brings the block when it has none', () => {
    const frame = frameFor(changeFor({ type: 'text', step: 1, attempt: 1, delta: '<b>more</b>' })!);
    expect(frame).toEqual({ into: 't-1-1', html: '&lt;b&gt;more&lt;/b&gt;', block: '<p class="text" id="t-1-1">&lt;b&gt;more&lt;/b&gt;</p>' });
    const decided = frameFor(changeFor({ type: 'permission_decided', step: 1, requestId: 'q-1', toolCallId: 'call_1', decision: 'deny', reason: 'no' })!);
    expect(decided).toMatchObject({ into: `q-${Buffer.from('q-1').toString('base64url')} .open`, replace: true, closes: `p-${Buffer.from('q-1').toString('base64url')}` });
  });

  test('a long tool result is folded behind its first line', () => {
    const [, , tool] = foldEvents(events.map((e) => (e.type === 'tool_result' ? { ...e, preview: 'x'.repeat(300) } : e)));
    expect(blockHtml(tool!).toString()).toContain('<details class="ok"><summary>result (300 chars)');
  });
});

describe('sessions', () => {
  test('a cookie verifies under its token only, and is not forged by editing it', () => {
    const sessions = new Sessions('token-aaaaaaaaaaaaaaaa');
    const cookie = sessions.create();
    const id = sessions.verify(cookie);
    expect(id).toBeDefined();
    expect(new Sessions('token-bbbbbbbbbbbbbbbb').verify(cookie)).toBeUndefined();
    expect(sessions.verify(`x${cookie}`)).toBeUndefined();
    expect(sessions.verify(`${cookie}.more`)).toBeUndefined();
    expect(sessions.verify(undefined)).toBeUndefined();
  });

  test("a CSRF token is its session's own", () => {
    const sessions = new Sessions('token-aaaaaaaaaaaaaaaa');
    const a = sessions.verify(sessions.create())!;
    const b = sessions.verify(sessions.create())!;
    expect(sessions.csrfMatches(a, sessions.csrfFor(a))).toBe(true);
    expect(sessions.csrfMatches(b, sessions.csrfFor(a))).toBe(false);
    expect(sessions.csrfMatches(a, undefined)).toBe(false);
    expect(sessions.tokenMatches('token-aaaaaaaaaaaaaaaa')).toBe(true);
    expect(sessions.tokenMatches('token-aaaaaaaaaaaaaaa')).toBe(false);
  });
});

describe('settings and the token file', () => {
  test('BAREAGENT_UI_ADDR: loopback by default; a bad value names the variable', () => {
    expect(uiSettingsFromEnv({})).toEqual({ host: '127.0.0.1', port: 8780 });
    expect(uiSettingsFromEnv({ BAREAGENT_UI_ADDR: '[::1]:9000' })).toEqual({ host: '::1', port: 9000 });
    expect(uiSettingsFromEnv({ BAREAGENT_UI_ADDR: ':9000' })).toEqual({ host: '127.0.0.1', port: 9000 });
    expect(() => uiSettingsFromEnv({ BAREAGENT_UI_ADDR: 'localhost' })).toThrow(/BAREAGENT_UI_ADDR/);
    expect(() => uiSettingsFromEnv({ BAREAGENT_UI_URL: 'ftp://x' })).toThrow(/BAREAGENT_UI_URL/);
  });

  test("a run's page link under a public URL with a path", () => {
    expect(runPageUrl(publicUrl('https://example.com/approve'), 'fix 1/a')).toBe('https://example.com/approve/runs/fix%201%2Fa');
  });

  test('the token is made once, kept with mode 0600, reused; BAREAGENT_UI_TOKEN overrides it', () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'ui-token-'));
    const first = loadUiToken(home, {});
    expect(first.created).toBe(true);
    expect(statSync(first.file!).mode & 0o777).toBe(0o600);
    expect(readFileSync(first.file!, 'utf8').trim()).toBe(first.token);
    chmodSync(first.file!, 0o644);
    const again = loadUiToken(home, {});
    expect(again).toEqual({ token: first.token, created: false, file: first.file });
    expect(statSync(first.file!).mode & 0o777).toBe(0o600);
    expect(loadUiToken(home, { BAREAGENT_UI_TOKEN: 'from-the-environment-1234' })).toEqual({ token: 'from-the-environment-1234', created: false });
    expect(() => loadUiToken(home, { BAREAGENT_UI_TOKEN: 'short' })).toThrow(/BAREAGENT_UI_TOKEN/);
    writeFileSync(first.file!, 'x\n');
    expect(loadUiToken(home, {}).created).toBe(true);
  });
});
