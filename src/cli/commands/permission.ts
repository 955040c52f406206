import { statusQuery } from '../../common/contract';
import pc from 'picocolors';
import { sendDecision } from '../ask-permission';
import { openStack } from '../local-stack';
import { UsageError } from '../run-input';

/**
 * `bareagent approve|deny <workflowId> [requestId]`: with no request id, the one the run waits on.
 * `approve --always [--rule r]` allows for the rest of the run (the rule defaults to the call itself).
 */
export async function decideCommand(
  answer: 'allow' | 'deny',
  workflowId: string,
  requestId: string | undefined,
  flags: { reason?: string; json?: boolean; always?: boolean; rule?: string },
): Promise<number> {
  if (flags.rule && !flags.always) throw new UsageError('--rule goes with --always.');
  const decision = answer === 'allow' && flags.always ? 'allow_always' : answer;
  const stack = await openStack({ embedded: false, log: () => undefined });
  try {
    const handle = stack.client.workflow.getHandle(workflowId);
    const status = await handle.query(statusQuery);
    const pending = requestId ? status.pendingPermissions.find((p) => p.requestId === requestId) : status.pendingPermissions[0];
    if (!requestId && !pending) throw new UsageError(`Run ${workflowId} is not waiting for a permission decision.`);
    if (!requestId && status.pendingPermissions.length > 1) {
      console.error(pc.dim(`${status.pendingPermissions.length} requests wait; answering the first, ${pending?.requestId}.`));
    }
    const id = requestId ?? (pending?.requestId as string);
    // A subagent's question is answered in the subagent's own workflow.
    const target = pending?.workflowId ?? workflowId;
    const result = await sendDecision(stack.client, target, {
      requestId: id,
      decision,
      ...(flags.reason ? { reason: flags.reason } : {}),
      ...(flags.rule ? { rule: flags.rule } : {}),
    });
    if (flags.json) console.log(JSON.stringify(result));
    else {
      const rest = result.rule ? `; ${result.rule} allowed for the rest of the run` : '';
      console.log(`${decision === 'deny' ? pc.red('denied') : pc.green('allowed')} ${result.requestId} in ${target}${rest}`);
    }
    return 0;
  } finally {
    await stack.close();
  }
}
