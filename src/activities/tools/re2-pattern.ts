import { RE2JS } from 're2js';
import { ToolError } from './tool-error';
import { MAX_GREP_PATTERN_CHARS } from './limits';

const SYNTAX_NOTE = 'the grep tool uses RE2 syntax (no backreferences, no lookahead or lookbehind)';

/** What JS regexes have and RE2 refuses by design: matching them needs backtracking. */
const UNSUPPORTED: Array<[RegExp, string]> = [
  [/\\[1-9]|\\k</, 'backreferences'],
  [/(?<!\\)\(\?<?[=!]/, 'lookaround'],
];

export interface LinePattern {
  test(line: string): boolean;
}

/**
 * Compiles a model-given, JS-flavoured regex for RE2JS, which matches in time linear in the
 * line: `(a+)+$` over a long line of a's took seconds of event-loop block with RegExp.
 */
export function compileGrepPattern(pattern: string): LinePattern {
  if (pattern.length > MAX_GREP_PATTERN_CHARS) {
    throw new ToolError(`Pattern is too long (${pattern.length} characters; the limit is ${MAX_GREP_PATTERN_CHARS})`);
  }
  const withoutEscapedBackslashes = pattern.replace(/\\\\/g, '');
  for (const [construct, name] of UNSUPPORTED) {
    if (construct.test(withoutEscapedBackslashes)) {
      throw new ToolError(`Unsupported regular expression: ${name} are not supported; ${SYNTAX_NOTE}`);
    }
  }
  try {
    return RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (err) {
    throw new ToolError(`Invalid regular expression: ${(err as Error).message}; ${SYNTAX_NOTE}`);
  }
}
