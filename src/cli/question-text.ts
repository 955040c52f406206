import { mainArgument } from '../common/tool-schemas';
import { HIDDEN_WARNING, hasHiddenCharacters, inputHasHiddenCharacters, visibleLines, visibleText } from '../common/visible-text';
import { sessionRuleFor } from '../loop/session-rules';
import { settingsQuestionLines } from './settings-question';

/** Past this many characters a question shows the head of its input and says so; below, all of it. */
export const SHOWN_CHARS = 4000;

export interface QuestionRequest {
  requestId: string;
  tool: string;
  input: unknown;
  deadline?: string;
}

export interface QuestionText {
  /** Lines above the prompt: settings, the rest of the input, the warnings. */
  lines: string[];
  /** `Allow bash(ls -la)? [y/N/a]`, with the hint for `a` when there is a rule. */
  prompt: string;
  /** The input is longer than shown (the lines say so, and how to read it all). */
  cut: boolean;
  /** What `a` allows for the rest of the run; none when the input is cut or derives none. */
  rule?: string;
}

/**
 * A question as the terminal asks it, whole: the main argument exactly as it runs (hidden
 * characters written out, spaces as they are), every other field of the input below it, and
 * the one ⚠ the page shows too. An input too long for a terminal is shown up to SHOWN_CHARS
 * with a line that says so and where to read it all; `a` is not offered on it.
 */
export function questionText(workflowId: string, request: QuestionRequest): QuestionText {
  const { tool, input } = request;
  const settings = settingsQuestionLines(tool, input).map(visibleText);
  const main = visibleText(mainArgument(tool, input));
  const rest = settings.length > 0 ? '' : otherFields(tool, input);
  const total = main.length + rest.length;
  const cut = total > SHOWN_CHARS;
  const shownMain = cut ? `${main.slice(0, SHOWN_CHARS)}…` : main;
  const lines = [...settings];
  if (rest) lines.push(cut ? `input (its first ${SHOWN_CHARS} characters): ${rest.slice(0, SHOWN_CHARS)}…` : `input: ${rest}`);
  if (inputHasHiddenCharacters(input) || hasHiddenCharacters(tool)) lines.push(HIDDEN_WARNING);
  if (cut) {
    lines.push(
      `⚠ this input is ${total} characters, longer than shown here. Read it all before you allow it:`,
      `    bareagent status ${workflowId} --json`,
    );
  }
  const rule = settings.length > 0 || cut ? undefined : sessionRuleFor(tool, input);
  const always = rule ? ` (a: allow ${visibleText(rule)} for the rest of this run)` : '';
  const prompt = `Allow ${visibleText(tool)}(${shownMain})${cut ? ' [cut, see above]' : ''}? [y/N${rule ? '/a' : ''}]${always} `;
  return { lines, prompt, cut, ...(rule ? { rule } : {}) };
}

/** The fields beside the main argument, as indented JSON with hidden characters written out; empty when there are none. */
function otherFields(tool: string, input: unknown): string {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return input === undefined ? '' : visibleLines(JSON.stringify(input) ?? '');
  const main = mainArgument(tool, input);
  const record = input as Record<string, unknown>;
  const others = Object.keys(record).filter((key) => !(record[key] === main && ['file_path', 'command', 'pattern', 'task'].includes(key)));
  if (others.length === 0) return '';
  return visibleLines(JSON.stringify(input, null, 2));
}
