import { CancellationScope, isCancellation } from '@temporalio/workflow';
import type { AgentRunConfig } from '../common/input';
import type { HumanNeeded } from '../common/notify';
import { mainArgumentField, toolSummary } from '../common/tool-schemas';
import { visibleText } from '../common/visible-text';
import { inputDigest } from '../loop/input-digest';
import type { PendingPermission } from '../common/wire';
import { notifying } from './activity-proxies';
import { describeActivityFailure } from './failures';

/**
 * The webhook payload for an open request: what it is and how to answer it. Each command carries
 * the digest of the input: it answers this question only, even if pasted after another was asked.
 */
export function humanNeeded(workflowId: string, request: PendingPermission): HumanNeeded {
  const digest = inputDigest(request.tool, request.input);
  const id = `${workflowId} ${request.requestId}`;
  const pinned = `${id} --digest ${digest}`;
  return {
    type: 'permission_request',
    workflowId,
    requestId: request.requestId,
    toolCallId: request.toolCallId,
    tool: request.tool,
    inputDigest: digest,
    ...webhookSummary(request),
    requestedAt: request.requestedAt,
    deadline: request.deadline,
    commands: {
      approve: `bareagent approve ${pinned}`,
      approveAlways: `bareagent approve ${pinned} --always`,
      deny: `bareagent deny ${pinned}`,
      signal: `temporal workflow signal --workflow-id ${workflowId} --name permissionDecision --input '${JSON.stringify({ requestId: request.requestId, decision: 'allow', inputDigest: digest })}'`,
    },
  };
}

const WEBHOOK_SUMMARY_CHARS = 500;
const SHORT_FIELD_CHARS = 40;

/**
 * The summary a chat message shows: the main argument, then the other fields when they are short
 * (`bash touch a.txt (timeout: 30)`). One that leaves part of the input out (a long command, a
 * file's content) says so, and how much.
 */
function webhookSummary(request: PendingPermission): Pick<HumanNeeded, 'inputSummary' | 'inputSummaryCut'> {
  const input = typeof request.input === 'object' && request.input !== null ? (request.input as Record<string, unknown>) : {};
  const main = mainArgumentField(input);
  const shown: string[] = [];
  const left: string[] = [];
  for (const [name, value] of Object.entries(input)) {
    if (name === main) continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value) ?? '';
    if (text.length <= SHORT_FIELD_CHARS && !/[\r\n]/.test(text)) shown.push(visibleText(`${name}: ${text}`));
    else left.push(`${name} (${text.length} characters)`);
  }
  const head = toolSummary(request.tool, request.input, Number.POSITIVE_INFINITY);
  const whole = shown.length ? `${head} (${shown.join(', ')})` : head;
  if (whole.length <= WEBHOOK_SUMMARY_CHARS && left.length === 0) return { inputSummary: whole, inputSummaryCut: false };
  const kept = whole.slice(0, WEBHOOK_SUMMARY_CHARS);
  const missing = [...(whole.length > kept.length ? [`${whole.length - kept.length} more characters`] : []), ...left];
  return { inputSummary: `${kept}… [cut: ${missing.join(', ')} not shown; bareagent approve prints the whole input before it answers]`, inputSummaryCut: true };
}

/**
 * When a request opens: the webhooks are told by an activity the run does not wait for (the
 * worker's own webhook is known only there, so every new run schedules it). Behind a patch:
 * runs recorded before it scheduled nothing here. A delivery given up on is reported to `failed`.
 * Returns what to call once the request is decided: retries still under way then stop.
 */
export function notifyHuman(config: Omit<AgentRunConfig, 'resume'>, workflowId: string, request: PendingPermission, failed: (error: string) => void): () => void {
  const scope = new CancellationScope();
  const started = scope.run(() =>
    notifying.notifyHuman.executeWithOptions({ summary: `notify: ${toolSummary(request.tool, request.input, 80)}` }, [
      { ...(config.notify ? { webhook: config.notify.webhook } : {}), payload: humanNeeded(workflowId, request) },
    ]),
  );
  let settled = false;
  void started.then(
    () => (settled = true),
    (err: unknown) => {
      settled = true;
      if (!isCancellation(err)) failed(describeActivityFailure(err).message);
    },
  );
  return () => {
    if (!settled) scope.cancel();
  };
}
