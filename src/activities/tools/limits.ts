/** No single tool result may blow up the history: outputs are cut here. */
export const MAX_TOOL_OUTPUT_CHARS = 30_000;
/** Of a bash result's characters, this many come from the end of a long output (failures and summaries are there). */
export const BASH_TAIL_CHARS = 10_000;
export const MAX_READ_FILE_BYTES = 10 * 1024 * 1024;
/** edit_file reads the whole file into memory and writes it back: bounded like read_file. */
export const MAX_EDIT_FILE_BYTES = 10 * 1024 * 1024;
export const MAX_EDIT_TEXT_CHARS = 1024 * 1024;
export const MAX_GREP_MATCHES = 1000;
export const MAX_GREP_FILE_BYTES = 1024 * 1024;
/** RE2 matches in time linear in pattern size times line length; both are bounded. */
export const MAX_GREP_PATTERN_CHARS = 2000;
/** A grep over a huge tree stops here rather than reading the whole disk. */
export const MAX_GREP_TOTAL_BYTES = 256 * 1024 * 1024;
/** grep hands the event loop back this often, so heartbeats and other activities keep running. */
export const GREP_YIELD_EVERY_MS = 10;
export const MAX_GLOB_RESULTS = 1000;
/** fast-glob expands braces into one pattern each before it walks: `{a,b}` x 16 took 4 s. */
export const MAX_GLOB_ALTERNATIVES = 1000;
export const MAX_GLOB_RANGE = 1000;
export const MAX_GLOB_PATTERN_CHARS = 4096;

export function capOutput(text: string, max = MAX_TOOL_OUTPUT_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[output truncated: ${text.length - max} more characters]`;
}
