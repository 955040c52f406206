import { statusQuery, decidePermissionUpdate } from '../common/contract';
import { createInterface } from 'node:readline/promises';
import type { Client } from '@temporalio/client';
import pc from 'picocolors';
import { toolSummary } from '../common/tool-schemas';
import { sessionRuleFor } from '../loop/session-rules';
import { settingsQuestionLines } from './settings-question';
import { hasHiddenCharacters, inputHasHiddenCharacters, visibleText } from '../common/visible-text';
import type { PermissionDecisionInput, PermissionDecisionResult } from '../common/wire';

/** Still waiting? A follower that starts late must not ask about requests decided long ago. */
export async function isPending(client: Client, workflowId: string, requestId: string): Promise<boolean> {
  const status = await client.workflow.getHandle(workflowId).query(statusQuery);
  return status.pendingPermissions.some((p) => p.requestId === requestId);
}

export function sendDecision(client: Client, workflowId: string, decision: PermissionDecisionInput): Promise<PermissionDecisionResult> {
  return client.workflow.getHandle(workflowId).executeUpdate(decidePermissionUpdate, {
    args: [decision],
  });
}

/** What an answer typed at the prompt means: `a` allows for the rest of the run. */
export function parseAnswer(answer: string): PermissionDecisionInput['decision'] {
  const text = answer.trim();
  if (/^a(lways)?$/i.test(text)) return 'allow_always';
  return /^y(es)?$/i.test(text) ? 'allow' : 'deny';
}

/**
 * `Allow bash(rm -rf build)? [y/N/a]` in the terminal, answered through the decidePermission
 * update; `a` also allows every later call the derived rule matches, for the rest of the run.
 * The question shows hidden characters written out (an ESC or CR could otherwise erase part of
 * the command from the screen) and flags a call whose input holds any.
 */
export async function askInline(client: Client, workflowId: string, request: { requestId: string; tool: string; input: unknown }) {
  const summary = toolSummary(request.tool, request.input, 200).slice(visibleText(request.tool).length + 1);
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const settings = settingsQuestionLines(request.tool, request.input);
    if (settings.length > 0) console.log(pc.magenta(settings.join('\n')));
    const rule = settings.length > 0 ? undefined : sessionRuleFor(request.tool, request.input);
    const always = rule ? pc.dim(` (a: allow ${visibleText(rule)} for the rest of this run)`) : '';
    const flag = inputHasHiddenCharacters(request.input) || hasHiddenCharacters(request.tool) ? pc.red('⚠ contains control characters (shown escaped) ') : '';
    const answer = await rl.question(flag + pc.magenta(`Allow ${visibleText(request.tool)}(${summary})? [y/N${rule ? '/a' : ''}]`) + always + ' ');
    const typed = parseAnswer(answer);
    const decision = typed === 'allow_always' && !rule ? 'deny' : typed;
    await sendDecision(client, workflowId, { requestId: request.requestId, decision, reason: `${decision} in the terminal` });
  } catch (err) {
    console.error(pc.yellow(`Could not send the answer: ${(err as Error).message}`));
  } finally {
    rl.close();
  }
}

export function howToAnswer(workflowId: string, requestId: string): string {
  const payload = JSON.stringify({ requestId, decision: 'allow' });
  return [
    `  answer from another shell:  bareagent approve ${workflowId} ${requestId}   (or: bareagent deny ...; approve --always: for the rest of the run)`,
    `  or with the Temporal CLI:   temporal workflow signal --workflow-id ${workflowId} --name permissionDecision --input '${payload}'`,
  ].join('\n');
}
