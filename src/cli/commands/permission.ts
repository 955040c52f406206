import os from 'node:os';
import { statusQuery } from '../../common/contract';
import { visibleJson, visibleText } from '../../common/visible-text';
import pc from 'picocolors';
import { inputDigest } from '../../loop/input-digest';
import { sendDecision } from '../../runs/decisions';
import { questionText } from '../question-text';
import { openStack } from '../local-stack';
import { UsageError } from '../../runs/usage-error';

/**
 * `bareagent approve|deny <workflowId> [requestId]`: with no request id, the one the run waits on.
 * `approve --always [--rule r]` allows for the rest of the run (the rule defaults to the call itself).
 * The question is shown first (on stderr, whole) and the answer carries the digest of that input,
 * or of `--digest` (a webhook's command names the input its message showed): a question asked
 * since, under any id, cannot be answered by it.
 */
export async function decideCommand(
  answer: 'allow' | 'deny',
  workflowId: string,
  requestId: string | undefined,
  flags: { reason?: string; json?: boolean; always?: boolean; rule?: string; digest?: string },
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
      console.error(pc.dim(`${status.pendingPermissions.length} requests wait; answering the first, ${visibleText(pending?.requestId ?? '')}.`));
    }
    const id = requestId ?? (pending?.requestId as string);
    if (pending) showQuestion(workflowId, pending);
    // A subagent's question is answered in the subagent's own workflow.
    const target = pending?.workflowId ?? workflowId;
    const result = await sendDecision(stack.client, target, {
      requestId: id,
      decision,
      reason: answerReason(answer, flags.reason),
      ...(flags.digest ? { inputDigest: flags.digest } : pending ? { inputDigest: inputDigest(pending.tool, pending.input) } : {}),
      ...(flags.rule ? { rule: flags.rule } : {}),
    });
    if (flags.json) console.log(visibleJson(result));
    else {
      const rest = result.rule ? `; ${visibleText(result.rule)} allowed for the rest of the run` : '';
      console.log(`${decision === 'deny' ? pc.red('denied') : pc.green('allowed')} ${visibleText(result.requestId)} in ${visibleText(target)}${rest}`);
    }
    return 0;
  } finally {
    await stack.close();
  }
}

/**
 * The answer's reason says where it came from, as the page's answers do, so a terminal that asked
 * the same question can say who answered it: `allowed with bareagent approve by ana@build-1`.
 */
function answerReason(answer: 'allow' | 'deny', reason: string | undefined): string {
  const source = `bareagent ${answer === 'deny' ? 'deny' : 'approve'} by ${answeredBy()}`;
  return reason ? `${reason} (${source})` : `${answer === 'deny' ? 'denied' : 'allowed'} with ${source}`;
}

/** `user@host` of the shell that answered. */
function answeredBy(): string {
  let user = process.env.USER ?? process.env.LOGNAME;
  try {
    user ??= os.userInfo().username;
  } catch {
    user ??= 'someone';
  }
  return `${user}@${os.hostname()}`;
}

/** The question as the terminal asks it, on stderr so that `--json` stays one line on stdout. */
function showQuestion(workflowId: string, pending: { requestId: string; tool: string; input: unknown; deadline: string }): void {
  const question = questionText(workflowId, pending);
  for (const line of question.lines) console.error(line.startsWith('⚠') ? pc.red(line) : line);
  console.error(pc.magenta(`${question.prompt.replace(/\? \[y\/N.*$/, '?')} (request ${visibleText(pending.requestId)})`));
}
