import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { Context, Hono } from 'hono';
import { statusQuery, userMessageSignal } from '../common/contract';
import { forkSummary } from '../common/fork';
import { PermissionDecisionInput, UserMessageInput } from '../common/wire';
import { WORKFLOW_TYPE } from '../connection/config';
import { sendDecision } from '../runs/decisions';
import { forkInput } from '../runs/fork-input';
import { readOrigin } from '../runs/origin-input';
import { queryRun } from '../runs/query-run';
import { firstLine, newWorkflowId } from '../runs/run-labels';
import { UsageError } from '../runs/usage-error';
import type { UiEnv } from './access';
import { runPath } from './answer-forms';
import { h, page } from './page-html';
import { visible } from './visible-text';

class Refused extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * The answers, each through the message the CLI sends: the decidePermission update (approve,
 * deny, allow for the rest of the run), the userMessage signal, Temporal cancellation, a fork
 * started like `bareagent fork`. The result, or why it was refused, is the page that follows.
 */
export function registerAnswers(app: Hono<UiEnv>, client: Client, taskQueue: string, runPageFor: RunPageFor): void {
  const answer = (c: Context<UiEnv>, act: (id: string, form: Record<string, unknown>) => Promise<Outcome>) => answerWith(c, act, runPageFor);
  app.post('/runs/:id/answer', (c) =>
    answer(c, async (id, form) => {
      const decision = form.decision;
      const requestId = String(form.requestId ?? '');
      const reason = String(form.reason ?? '').trim();
      const digest = String(form.inputDigest ?? '');
      // An answer that names no input could approve a question the approver never saw (asked again under the same call id).
      if (!digest) throw new Refused('inputDigest: the answer names no input digest; answer from the question\'s card on the run\'s page');
      // The run says which workflow asks (a subagent's question is answered there), never the form.
      const status = await queryRun(client, id, statusQuery);
      const pending = status.pendingPermissions.find((p) => p.requestId === requestId);
      if (!pending) throw new Refused(`run ${id} is not waiting on request ${requestId || '(none given)'}: answered already, or timed out`);
      const parsed = PermissionDecisionInput.safeParse({
        requestId,
        decision,
        // The card carries the digest of the input it showed: the run refuses it for any other.
        inputDigest: digest,
        reason: reason ? `${reason} (in the approvers' page)` : `${decision === 'deny' ? 'denied' : 'allowed'} in the approvers' page`,
      });
      if (!parsed.success) throw new Refused(`decision: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      const target = pending.workflowId ?? id;
      const result = await sendDecision(client, target, parsed.data);
      const rest = result.rule ? `; ${result.rule} is allowed for the rest of the run` : '';
      return `${result.decision === 'deny' ? 'Denied' : 'Allowed'} ${result.requestId} in ${target}${rest}.`;
    }),
  );
  app.post('/runs/:id/message', (c) =>
    answer(c, async (id, form) => {
      const parsed = UserMessageInput.safeParse({ text: String(form.text ?? '') });
      if (!parsed.success) throw new Refused('text: the follow-up is empty');
      const handle = client.workflow.getHandle(id);
      await refuseUnlessRunning(handle.describe(), id);
      await handle.signal(userMessageSignal, parsed.data);
      return `Sent to ${id}; the run reads it at its next safe boundary.`;
    }),
  );
  app.post('/runs/:id/cancel', (c) =>
    answer(c, async (id) => {
      const handle = client.workflow.getHandle(id);
      await refuseUnlessRunning(handle.describe(), id);
      await handle.cancel();
      return `Cancellation requested for ${id}: its current model or tool call is cancelled and the run closes as Cancelled.`;
    }),
  );
  app.post('/runs/:id/fork', (c) =>
    answer(c, async (id, form) => {
      const step = Number(form.step);
      if (!Number.isInteger(step) || step < 1) throw new Refused(`step: a step number (1 or more), got "${String(form.step)}"`);
      const prompt = String(form.prompt ?? '').trim();
      if (!prompt) throw new Refused('prompt: the new run needs its next message');
      const origin = await readOrigin(client, id);
      const input = forkInput(origin, prompt, step, {});
      const workflowId = newWorkflowId();
      await client.workflow.start(WORKFLOW_TYPE, { taskQueue, workflowId, args: [input], staticSummary: forkSummary({ workflowId: id, step }, firstLine(prompt, 80)) });
      return { message: `Started ${workflowId}, a fork of ${id} at step ${step}.`, next: workflowId };
    }),
  );
}

async function refuseUnlessRunning(description: Promise<{ status: { name: string } }>, id: string): Promise<void> {
  const { status } = await description;
  if (status.name !== 'RUNNING') throw new Refused(`run ${id} is ${status.name.toLowerCase()}`);
}

type Outcome = string | { message: string; next: string };

/** A run's page with a notice on top: what an answer leads to. */
export type RunPageFor = (c: Context<UiEnv>, workflowId: string, notice?: { tone: 'done' | 'refused' | 'failed'; message: string }) => Promise<string>;

/**
 * An answer's response is the run's page (the fork's, for a fork), live, with what the answer did
 * (or why it was refused) on top; its script then gives the page the run's own address, so a
 * reload reads the run and never sends the answer again. When the run cannot be read, the outcome
 * alone, with the links.
 */
async function answerWith(c: Context<UiEnv>, act: (id: string, form: Record<string, unknown>) => Promise<Outcome>, runPageFor: RunPageFor): Promise<Response> {
  const id = c.req.param('id') ?? '';
  const form = (await c.req.parseBody()) as Record<string, unknown>;
  let shown: { title: string; tone: 'done' | 'refused' | 'failed'; message: string; next: string; code: 200 | 409 | 502 };
  try {
    const outcome = await act(id, form);
    const { message, next } = typeof outcome === 'string' ? { message: outcome, next: id } : outcome;
    shown = { title: 'Done', tone: 'done', message, next, code: 200 };
  } catch (err) {
    const refused = err instanceof Refused || err instanceof UsageError || err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError;
    const message = err instanceof WorkflowUpdateFailedError ? `${err.cause?.message ?? err.message}` : (err as Error).message;
    shown = refused ? { title: 'Refused', tone: 'refused', message, next: id, code: 409 } : { title: 'Failed', tone: 'failed', message, next: id, code: 502 };
  }
  const body = await runPageFor(c, shown.next, { tone: shown.tone, message: shown.message }).catch(() => resultPage(shown.title, shown.message, shown.next));
  return c.html(body, shown.code);
}

function resultPage(title: string, message: string, runId: string): string {
  const body = h`<h1>${title}</h1><p class="outcome ${title.toLowerCase()}" role="status">${visible(message)}</p>
<p class="links"><a href="${runPath(runId)}">${visible(runId)}</a> · <a href="/">Inbox</a></p>`;
  return page({ title, body });
}
