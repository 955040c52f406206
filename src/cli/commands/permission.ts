import pc from 'picocolors';
import type { RunStatus } from '../../common/wire';
import { sendDecision } from '../ask-permission';
import { openStack } from '../local-stack';
import { UsageError } from '../run-input';

/** `bareagent approve|deny <workflowId> [requestId]`: with no request id, the one the run waits on. */
export async function decideCommand(
  decision: 'allow' | 'deny',
  workflowId: string,
  requestId: string | undefined,
  flags: { reason?: string; json?: boolean },
): Promise<number> {
  const stack = await openStack({ embedded: false, log: () => undefined });
  try {
    const handle = stack.client.workflow.getHandle(workflowId);
    let id = requestId;
    if (!id) {
      const status = await handle.query<RunStatus>('status');
      const [first, ...rest] = status.pendingPermissions;
      if (!first) throw new UsageError(`Run ${workflowId} is not waiting for a permission decision.`);
      if (rest.length) console.error(pc.dim(`${rest.length + 1} requests wait; answering the first, ${first.requestId}.`));
      id = first.requestId;
    }
    const result = await sendDecision(stack.client, workflowId, {
      requestId: id,
      decision,
      ...(flags.reason ? { reason: flags.reason } : {}),
    });
    if (flags.json) console.log(JSON.stringify(result));
    else console.log(`${decision === 'allow' ? pc.green('allowed') : pc.red('denied')} ${result.requestId} in ${workflowId}`);
    return 0;
  } finally {
    await stack.close();
  }
}
