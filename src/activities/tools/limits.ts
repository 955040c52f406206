/** No single tool result may blow up the history: outputs are cut here. */
export const MAX_TOOL_OUTPUT_CHARS = 30_000;
export const MAX_READ_FILE_BYTES = 10 * 1024 * 1024;
export const MAX_GREP_MATCHES = 1000;
export const MAX_GREP_FILE_BYTES = 1024 * 1024;
export const MAX_GLOB_RESULTS = 1000;

export function capOutput(text: string, max = MAX_TOOL_OUTPUT_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[output truncated: ${text.length - max} more characters]`;
}
