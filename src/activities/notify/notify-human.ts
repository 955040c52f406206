import { ApplicationFailure, Context } from '@temporalio/activity';
import type { NotifyRequest, NotifyResult } from '../../common/notify';
import { publicUrl, runPageUrl } from '../../connection/ui-settings';
import { egressFetch } from '../../egress/egress-fetch';
import { EgressRefused } from '../../egress/resolve-allowed';

/** One attempt's wait for a webhook; a hanging one fails the attempt and the retry policy decides. */
export const WEBHOOK_TIMEOUT_MS = 5_000;

interface Target {
  label: string;
  url: string;
}

/**
 * POSTs the request to the run's webhook and the worker's (BAREAGENT_NOTIFY_WEBHOOK), once each
 * when they are the same. A 5xx, 408, 429, a timeout or a network error fails the attempt (retried
 * by the workflow's policy); another 4xx will not get better and fails for good. Messages name a
 * webhook by its host only: its path often carries a token.
 */
export function createNotifyHuman(workerWebhook: string | undefined, approverPageUrl?: string) {
  // Checked when the worker starts: a mistyped BAREAGENT_UI_URL is reported then, naming it.
  const pageBase = approverPageUrl ? publicUrl(approverPageUrl) : undefined;
  return async function notifyHuman(request: NotifyRequest): Promise<NotifyResult> {
    const targets: Target[] = [];
    if (request.webhook) targets.push({ label: `run webhook (${host(request.webhook)})`, url: request.webhook });
    if (workerWebhook && workerWebhook !== request.webhook) targets.push({ label: `worker webhook (${host(workerWebhook)})`, url: workerWebhook });
    // The link carries no secret: the approver's browser signs in with its own cookie.
    const payload = pageBase ? { ...request.payload, page: runPageUrl(pageBase, request.payload.workflowId) } : request.payload;
    const body = JSON.stringify(payload);
    const outcomes = await Promise.all(targets.map((target) => post(target, body)));
    const failures = outcomes.filter((o): o is Failed => o !== undefined);
    if (failures.length > 0) {
      throw ApplicationFailure.create({
        type: 'NotificationFailed',
        message: failures.map((f) => `${f.label}: ${f.why}`).join('; '),
        nonRetryable: failures.every((f) => f.final),
      });
    }
    return { delivered: targets.map((t) => t.label) };
  };
}

interface Failed {
  label: string;
  why: string;
  final: boolean;
}

async function post(target: Target, body: string): Promise<Failed | undefined> {
  if (!URL.canParse(target.url)) return { label: target.label, why: 'not a URL', final: true };
  // A timer of our own: a combined AbortSignal.timeout() may be collected before it fires (Node 20).
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new DOMException('webhook timed out', 'TimeoutError')), WEBHOOK_TIMEOUT_MS);
  const cancelled = Context.current().cancellationSignal;
  const onCancel = () => abort.abort(cancelled.reason);
  cancelled.addEventListener('abort', onCancel);
  try {
    const response = await egressFetch()(target.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: abort.signal });
    await response.body?.cancel().catch(() => undefined);
    if (response.ok) return undefined;
    const retryable = response.status >= 500 || response.status === 408 || response.status === 429;
    return { label: target.label, why: `HTTP ${response.status}`, final: !retryable };
  } catch (err) {
    // A refused address will not change by retrying.
    if (err instanceof EgressRefused) return { label: target.label, why: err.message, final: true };
    const name = (err as Error).name;
    const why = name === 'TimeoutError' ? `no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s` : ((err as Error & { cause?: Error }).cause?.message ?? (err as Error).message);
    return { label: target.label, why, final: false };
  } finally {
    clearTimeout(timer);
    cancelled.removeEventListener('abort', onCancel);
  }
}

function host(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an invalid URL';
  }
}
