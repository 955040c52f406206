import { messagesQuery } from '../../common/contract';
import { visibleJson, visibleProse, visibleText } from '../../common/visible-text';
import type { Command } from 'commander';
import pc from 'picocolors';
import type { ContentBlock, Message } from '../../common/messages';
import { toolSummary } from '../../common/tool-schemas';
import { openStack } from '../local-stack';
import { queryRun } from '../../runs/query-run';

const RESULT_LINES = 6;
const RESULT_CHARS = 600;

/** `bareagent messages <workflowId>`: the run's conversation (the `messages` query) as text. */
export async function messagesCommand(workflowId: string, flags: { json?: boolean }): Promise<number> {
  const stack = await openStack({ embedded: false, log: () => undefined });
  try {
    const messages = await queryRun(stack.client, workflowId, messagesQuery);
    if (flags.json) console.log(visibleJson(messages, undefined, 2));
    else if (messages.length === 0) console.log(`Run ${workflowId} has no messages yet.`);
    else console.log(messages.map(formatMessage).join('\n\n'));
    return 0;
  } finally {
    await stack.close();
  }
}

/** One message as a reader wants it; read defensively, the query answers whatever the run holds. */
export function formatMessage(message: Message): string {
  const blocks: ContentBlock[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content ?? []);
  const lines: string[] = [];
  for (const block of blocks) {
    if (block.type === 'text') lines.push(`${pc.bold(`${visibleText(message.role)}:`)} ${visibleProse(block.text)}`);
    else if (block.type === 'tool_use') lines.push(`${pc.cyan('⏺')} ${toolSummary(block.name, block.input, 100)}  ${pc.dim(`(${visibleText(block.id)})`)}`);
    else lines.push(`${pc.dim(`  ⎿ ${block.is_error ? 'error ' : ''}result of ${visibleText(block.tool_use_id)}:`)}\n${indent(visibleProse(shorten(block.content)))}`);
  }
  return lines.join('\n');
}

function shorten(text: string): string {
  const lines = text.split('\n');
  let kept = lines.slice(0, RESULT_LINES).join('\n');
  if (kept.length > RESULT_CHARS) kept = kept.slice(0, RESULT_CHARS);
  const cut = text.length - kept.length;
  return cut > 0 ? `${kept}\n… (${cut} more characters)` : kept;
}

const indent = (text: string) => text.split('\n').map((line) => `    ${line}`).join('\n');

export function registerMessages(program: Command, settle: (code: Promise<number>) => Promise<void>): void {
  program
    .command('messages')
    .argument('<workflowId>', 'the run (open or closed)')
    .option('--json', 'print the messages as JSON, as the model receives them')
    .description("show a run's conversation: the prompt, replies, tool calls and (shortened) tool results")
    .addHelpText(
      'after',
      `
Works for a run that is running or closed, with or without a worker (one is started in this
process for the query when needed). After continue-as-new it shows the carried conversation.
The same messages as: temporal workflow query --workflow-id <id> --name messages

Examples:
  bareagent messages fix-1
  bareagent messages fix-1 --json | jq '.[-1]'`,
    )
    .action((workflowId: string, flags: { json?: boolean }) => settle(messagesCommand(workflowId, flags)));
}
