import { mkdtempSync, readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RunEvent } from '../../src/common/events';
import { questionCard } from '../../src/ui/answer-forms';
import { blockHtml, frameFor } from '../../src/ui/conversation-html';
import { changeFor, foldEvents } from '../../src/ui/conversation';
import { Sessions } from '../../src/ui/session';
import { publicUrl, runPageUrl, uiSettingsFromEnv } from '../../src/ui/ui-settings';
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
    { type: 'final', text: 'Hello', stopReason: 'final_answer' },
  ];

  test('text deltas join their turn, a result its call, a decision its question', () => {
    expect(foldEvents(events)).toEqual([
      { kind: 'step', step: 1 },
      { kind: 'text', step: 1, attempt: 1, text: 'Hello' },
      { kind: 'tool', id: 'call_1', name: 'bash', input: { command: 'ls' }, result: { isError: false, preview: 'a.txt' } },
      { kind: 'asked', requestId: 'q-1', tool: 'bash', input: { command: 'ls' }, deadline: '2030-01-01T00:00:00Z', decided: { decision: 'allow', reason: 'fine' } },
      { kind: 'note', tone: 'final', text: 'Finished (final_answer).' },
    ]);
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
