import type { Message, ToolResultBlock } from '../common/messages';
import { canonicalPath } from './workspace-path';

export const USER_DENIED = 'User denied.';

/** The seed's `_stringify_output`: strings as they are, null/undefined to "", the rest as JSON. */
export function stringifyOutput(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output === null || output === undefined) return '';
  try {
    return JSON.stringify(output) ?? '';
  } catch {
    return String(output);
  }
}

export function toolResult(toolUseId: string, output: unknown, isError = false): ToolResultBlock {
  return { type: 'tool_result', tool_use_id: toolUseId, content: stringifyOutput(output), is_error: isError };
}

export const deniedResult = (toolUseId: string): ToolResultBlock => toolResult(toolUseId, USER_DENIED, true);

export const unknownToolResult = (toolUseId: string, name: string): ToolResultBlock =>
  toolResult(toolUseId, `Unknown tool: ${name}`, true);

/** The seed's form for a handler that threw: `Error: <ExceptionType>: <message>`. */
export const handlerErrorResult = (toolUseId: string, errorType: string, message: string): ToolResultBlock =>
  toolResult(toolUseId, `Error: ${errorType}: ${message}`, true);

/** A call a PreToolUse hook blocked: it did not run. */
export const hookBlockedResult = (toolUseId: string, reason: string): ToolResultBlock => toolResult(toolUseId, `Blocked by a PreToolUse hook: ${reason}`, true);
/**
 * The files the conversation has read or written (canonical workspace-relative paths), from its
 * tool calls before the call `before` (one of the same reply may come later in it).
 */
export function filesSeen(messages: readonly Message[], before?: string): Set<string> {
  const seen = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type === 'tool_use' && block.id === before) return seen;
      if (block.type !== 'tool_use' || (block.name !== 'read_file' && block.name !== 'write_file')) continue;
      const path = (block.input as { file_path?: unknown } | null)?.file_path;
      if (typeof path === 'string') seen.add(canonicalPath(path));
    }
  }
  return seen;
}
