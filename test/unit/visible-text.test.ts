import { hasHiddenCharacters, inputHasHiddenCharacters, visibleLines, visibleText } from '../../src/common/visible-text';
import { toolSummary } from '../../src/common/tool-schemas';

test('escape sequences, carriage returns, bidi overrides, zero-width and odd spaces are written out', () => {
  expect(visibleText('ls -la\u001b[2K\rtouch SPOOFED; ls')).toBe('ls -la\\x1b[2K\\rtouch SPOOFED; ls');
  expect(visibleText('a\u202ecod.exe')).toBe('a\\u202ecod.exe');
  expect(visibleText('x\u200by\u00a0z\u2028\u0085\u007f')).toBe('x\\u200by\\xa0z\\u2028\\x85\\x7f');
  expect(visibleText('tab\there\nnext')).toBe('tab\\there\\nnext');
  expect(visibleText('plain text, ünïcode 日本')).toBe('plain text, ünïcode 日本');
  expect(visibleLines('one\r\ntwo')).toBe('one\\r\ntwo');
});

test('only what would hide something is flagged: newlines and tabs are not', () => {
  expect(hasHiddenCharacters('cat <<EOF\nx\tEOF')).toBe(false);
  expect(hasHiddenCharacters('ls\r')).toBe(true);
  expect(inputHasHiddenCharacters({ command: 'ls', nested: ['ok', { deep: 'a\u001bb' }] })).toBe(true);
  expect(inputHasHiddenCharacters({ command: 'ls -la' })).toBe(false);
});

test('tool summaries (follower lines, status, history, webhooks) show the hidden part', () => {
  expect(toolSummary('bash', { command: 'ls -la\u001b[2K\rtouch SPOOFED; ls' })).toBe('bash ls -la\\x1b[2K\\rtouch SPOOFED; ls');
  expect(toolSummary('bash', { command: '  npm   test  ' })).toBe('bash npm test');
});

test('a symbol drawn blank (U+303F) and unassigned code points are written out and flagged, on the page as in the terminal', () => {
  expect(visibleText('rm\u303f-rf /\u{50000}x')).toBe('rm\\u303f-rf /\\u{50000}x');
  expect(hasHiddenCharacters('a\u303fb')).toBe(true);
  expect(hasHiddenCharacters('a\u{50000}b')).toBe(true);
  expect(hasHiddenCharacters('plain ascii, café, 日本語')).toBe(false);
});
