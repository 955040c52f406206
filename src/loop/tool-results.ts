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
/** An edit_file result that showed the whole file, numbered (a small file's miss, or its edit). */
export const SHOWN_WHOLE = /, \d+ lines?, numbered as read_file numbers them/;

/** Every tool result's text by its call id. */
function resultTexts(messages: readonly Message[]): Map<string, string> {
  const texts = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'user' || typeof message.content === 'string') continue;
    for (const block of message.content) if (block.type === 'tool_result') texts.set(block.tool_use_id, typeof block.content === 'string' ? block.content : JSON.stringify(block.content));
  }
  return texts;
}

/**
 * The files the conversation has read, written or been shown whole (canonical workspace-relative
 * paths), from its tool calls before the call `before` (one of the same reply may come later in it).
 */
export function filesSeen(messages: readonly Message[], before?: string): Set<string> {
  const seen = new Set<string>();
  let results: Map<string, string> | undefined;
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type === 'tool_use' && block.id === before) return seen;
      if (block.type !== 'tool_use') continue;
      const path = (block.input as { file_path?: unknown } | null)?.file_path;
      if (typeof path !== 'string') continue;
      if (block.name === 'read_file' || block.name === 'write_file') seen.add(canonicalPath(path));
      else if (block.name === 'edit_file') {
        results ??= resultTexts(messages);
        if (SHOWN_WHOLE.test(results.get(block.id) ?? '')) seen.add(canonicalPath(path));
      }
    }
  }
  return seen;
}

/**
 * Whether an earlier edit_file of the conversation on `path` (canonical), one that applied, replaced
 * text holding `oldText` (or inside it) with text that does not hold it: the model is editing lines
 * its own edit already changed.
 */
export function editedAway(messages: readonly Message[], path: string, oldText: string, before?: string): boolean {
  if (oldText === '') return false;
  const results = resultTexts(messages);
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type !== 'tool_use') continue;
      if (block.id === before) return false;
      if (block.name !== 'edit_file') continue;
      const input = block.input as { file_path?: unknown; old_text?: unknown; new_text?: unknown } | null;
      if (typeof input?.file_path !== 'string' || typeof input.old_text !== 'string' || typeof input.new_text !== 'string' || input.old_text === '') continue;
      if (canonicalPath(input.file_path) !== path || !(results.get(block.id) ?? '').startsWith('Edited ')) continue;
      const overlapped = input.old_text.includes(oldText) || oldText.includes(input.old_text);
      if (overlapped && !input.new_text.includes(oldText)) return true;
    }
  }
  return false;
}
