import { userMessageSignal } from '../../common/contract';
import { visibleJson } from '../../common/visible-text';
import type { Command } from 'commander';
import pc from 'picocolors';
import { UserMessageInput } from '../../common/wire';
import { openStack } from '../local-stack';
import { UsageError } from '../../runs/usage-error';

/** `bareagent message <workflowId> <text>`: the `userMessage` signal, taken at the run's next safe boundary. */
export async function messageCommand(workflowId: string, text: string, flags: { json?: boolean }): Promise<number> {
  const parsed = UserMessageInput.safeParse({ text });
  if (!parsed.success) throw new UsageError('The message is empty.');
  const stack = await openStack({ embedded: false, log: () => undefined });
  try {
    const handle = stack.client.workflow.getHandle(workflowId);
    const { status } = await handle.describe();
    if (status.name !== 'RUNNING') throw new UsageError(`Run ${workflowId} is ${status.name.toLowerCase()}; it takes no more messages.`);
    await handle.signal(userMessageSignal, parsed.data);
    if (flags.json) console.log(visibleJson({ workflowId, signal: 'userMessage', text: parsed.data.text }));
    else console.log(`${pc.green('sent')} to ${workflowId}; the run reads it at its next safe boundary (after the current model or tool call).`);
    return 0;
  } finally {
    await stack.close();
  }
}

export function registerMessage(program: Command, settle: (code: Promise<number>) => Promise<void>): void {
  program
    .command('message')
    .argument('<workflowId>', 'a running run')
    .argument('<text>', 'the follow-up message for the agent')
    .option('--json', 'print { workflowId, signal, text }')
    .description('send a follow-up message to a running run (the userMessage signal)')
    .addHelpText(
      'after',
      `
The run takes the message at its next safe boundary: never in the middle of a model call or a
tool call. Exit code: 0 sent, 2 no such run or the run is closed.

Examples:
  bareagent message fix-1 "Also update the changelog"
  temporal workflow signal --workflow-id fix-1 --name userMessage --input '{"text":"Also update the changelog"}'`,
    )
    .action((workflowId: string, text: string, flags: { json?: boolean }) => settle(messageCommand(workflowId, text, flags)));
}
