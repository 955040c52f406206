/**
 * What the CLI's terminal output does with hostile model text, checked on the bytes it renders:
 * the Markdown renderer's links and the JSON of `--json`.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { visibleJson } from '../../src/common/visible-text';

/** renderMarkdown in a Node process of its own, as the CLI loads it (marked is an ES module jest cannot import here). */
function rendered(text: string, env: Record<string, string>): string {
  const script = `require('tsx/cjs'); require(${JSON.stringify(path.resolve(__dirname, '../../src/cli/terminal/markdown.ts'))}).renderMarkdown(process.argv[1], 80, true).then((out) => process.stdout.write(out));`;
  return execFileSync(process.execPath, ['-e', script, text], { env: { ...process.env, ...env }, encoding: 'utf8' });
}

test('a Markdown link prints its target: never an OSC 8 hyperlink whose shown text hides where it goes', () => {
  // As a terminal that supports hyperlinks (iTerm, VTE) is detected.
  const shown = rendered('Read [the docs](https://evil.example/x) first, **now**.', { FORCE_HYPERLINK: '1', FORCE_COLOR: '1' });
  expect(shown).toContain('\x1b['); // styled: it really rendered
  expect(shown).not.toContain('\x1b]8;');
  expect(shown).toContain('the docs (https://evil.example/x)');
  // The model's own sequences are written out before any style is added.
  const hostile = rendered('Done \x1b]52;c;aGVsbG8=\x07 and \u202e.', { FORCE_COLOR: '1' });
  expect(hostile).not.toMatch(/\x1b\]|\x07|\u202e/);
  expect(hostile).toContain('\\x1b]52;c;aGVsbG8=\\x07');
  expect(hostile).toContain('\\u202e');
});

test('--json output holds no C1 control, DEL or bidi character raw, and parses to the same value', () => {
  const value = { text: 'a\u009b2Kb\u007f\u202e\u{e0041}\x1b c', n: [1, 2] };
  const text = visibleJson(value, undefined, 2);
  expect(text).not.toMatch(/[\u007f-\u009f\u202e\x1b]|\u{e0041}/u);
  expect(text).toContain('\\u009b2K');
  expect(JSON.parse(text)).toEqual(value);
  expect(visibleJson(undefined)).toBe('null');
});
