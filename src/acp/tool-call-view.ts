import path from 'node:path';
import type { RunEvent } from '../common/events';
import { firstLine } from '../runs/run-labels';
import type { Acp } from './acp-sdk';

type ToolCallEvent = Extract<RunEvent, { type: 'tool_call' }>;

const KINDS: Record<string, Acp.ToolKind> = {
  read_file: 'read',
  glob: 'search',
  grep: 'search',
  write_file: 'edit',
  edit_file: 'edit',
  bash: 'execute',
  background_run: 'execute',
  subagent: 'think',
};

const field = (input: unknown, key: string): string | undefined => {
  const value = (input as Record<string, unknown> | null)?.[key];
  return typeof value === 'string' ? value : undefined;
};

/**
 * A tool call as an editor shows it: a one-line title, its kind, the file it touches. `proposed`:
 * for a question, the change a write or an edit asks for, as a diff (what it did comes from the
 * run's checkpoints once it ran: file-change-view.ts).
 */
export function toolCallView(call: Pick<ToolCallEvent, 'id' | 'name' | 'input'>, workspace: string, options: { proposed?: boolean } = {}): Acp.ToolCall {
  const file = field(call.input, 'file_path');
  const subject = field(call.input, 'command') ?? file ?? field(call.input, 'pattern') ?? field(call.input, 'description');
  return {
    toolCallId: call.id,
    title: subject ? `${call.name} ${firstLine(subject, 100)}` : call.name,
    kind: KINDS[call.name] ?? 'other',
    status: 'pending',
    rawInput: call.input,
    ...(file ? { locations: [{ path: path.resolve(workspace, file) }] } : {}),
    ...(file && options.proposed ? { content: proposedChange(call.name, call.input, path.resolve(workspace, file)) } : {}),
  };
}

/** The change a write or an edit asks for, as ACP's diff (a write's earlier text is not known here). */
function proposedChange(name: string, input: unknown, file: string): Acp.ToolCallContent[] {
  if (name === 'write_file') return [{ type: 'diff', path: file, oldText: null, newText: field(input, 'content') ?? '' }];
  if (name === 'edit_file') return [{ type: 'diff', path: file, oldText: field(input, 'old_text') ?? '', newText: field(input, 'new_text') ?? '' }];
  return [];
}
