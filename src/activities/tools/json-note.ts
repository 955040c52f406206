/**
 * A note when a write or an edit leaves a `.json` file that does not parse: where, and the line.
 * JSON.parse is linear in the text and runs nothing. The 1.5B model, told by `node app.js` only
 * "Expected double-quoted property name in JSON at position 58", renamed a key back and forth
 * until the run stopped, and never touched the trailing comma before `}` (EVALS.md).
 */
import { sourceLanguageOf } from '../../loop/source-language';
import { STILL_TO_DO } from '../../loop/next-step';
import { lineAt } from './edited-region';

/** Longer lines are cut in the note. */
const MAX_LINE_CHARS = 200;

export function jsonNote(filePath: string, text: string): string | undefined {
  if (sourceLanguageOf(filePath) !== 'json') return undefined;
  try {
    JSON.parse(text);
    return undefined;
  } catch (err) {
    const message = (err as Error).message;
    const position = /at position (\d+)/.exec(message)?.[1];
    if (position === undefined) return `${STILL_TO_DO} ${filePath} is not valid JSON now: ${message}.`;
    const at = Math.min(Number(position), text.length);
    const before = text.slice(0, at);
    const line = lineAt(text, at);
    const column = at - before.lastIndexOf('\n');
    const lineText = (n: number) => JSON.stringify((text.split('\n', n)[n - 1] ?? '').slice(0, MAX_LINE_CHARS));
    const upToComma = before.trimEnd();
    const commaLine = lineAt(text, upToComma.length);
    const trailing = upToComma.endsWith(',') && (text[at] === '}' || text[at] === ']') ? ` JSON allows no comma after the last item of an object or array: remove the comma at the end of line ${commaLine}, ${lineText(commaLine)}.${commaEdit(text, upToComma.length - 1, at)}` : '';
    return `${STILL_TO_DO} ${filePath} is not valid JSON now: ${message.replace(/ in JSON at position \d+.*$/s, '')}, at line ${line}, column ${column}: ${lineText(line)}.${trailing}`;
  }
}

/**
 * The one edit_file call that removes a trailing comma: its line up to the comma, when that text
 * is in the file once (the edit replaces the first occurrence), else the text from that line to
 * the bracket. Told where the comma was, the 1.5B model still edited the key before it; a call it
 * can copy, it makes. Given the two lines, it dropped the bracket from new_text: one line is
 * copied whole.
 */
function commaEdit(text: string, comma: number, bracket: number): string {
  const from = text.lastIndexOf('\n', comma) + 1;
  const once = (candidate: string) => candidate.length <= MAX_LINE_CHARS && text.indexOf(candidate) === text.lastIndexOf(candidate);
  const oldText = [text.slice(from, comma + 1), text.slice(from, bracket + 1)].find(once);
  if (oldText === undefined) return '';
  const newText = oldText.slice(0, comma - from) + oldText.slice(comma - from + 1);
  return ` Call edit_file with old_text ${JSON.stringify(oldText)} and new_text ${JSON.stringify(newText)}.`;
}
