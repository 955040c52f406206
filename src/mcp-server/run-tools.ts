import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { statusQuery, userMessageSignal } from '../common/contract';
import { visibleJson } from '../common/visible-text';
import { UserMessageInput } from '../common/wire';
import { runUiLink, type ConnectionConfig } from '../connection/config';
import { startCheckedRun } from '../cli/start-run';
import { sendDecision } from '../runs/decisions';
import { runOutcome } from '../runs/run-outcome';
import { openQuestions, runSnapshot } from '../runs/run-snapshot';
import { UsageError } from '../runs/usage-error';

export interface ToolContext {
  client: Client;
  config: ConnectionConfig;
  uiPort: number;
  /** Who answers through this server, for the reason an answer records ("... through bareagent mcp (client)"). */
  clientName: () => string;
}

/** Runs outlive the caller: said in every tool that starts or touches one. */
const DURABLE = 'Runs are durable Temporal workflows: they go on after this conversation or this server ends, and any client can pick them up by id.';
const MAX_EVENTS = 200;
const MAX_WAIT_S = 600;

const ok = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: visibleJson(value, undefined, 1) }] });
const refused = (message: string): CallToolResult => ({ content: [{ type: 'text', text: message }], isError: true });

/** A refusal the caller can act on is a tool error with its message, never a protocol failure. */
async function answer(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof UsageError) return refused(err.message);
    if (err instanceof WorkflowNotFoundError) return refused(`No run ${err.workflowId ?? ''} on this server.`);
    if (err instanceof WorkflowUpdateFailedError) return refused(`Refused: ${err.cause?.message ?? err.message}`);
    throw err;
  }
}

/** The five tools: start a run, read it, answer its questions, send it a follow-up, collect its result. */
export function registerRunTools(server: McpServer, ctx: ToolContext): void {
  const { client, config } = ctx;
  server.registerTool(
    'start_run',
    {
      title: 'Start a durable agent run',
      description:
        `Starts a BareAgent coding-agent run in a workspace directory on this machine and returns its id at once; the run works on its own. ` +
        `It costs model tokens and time on every step until it ends or a budget stops it (set maxIterations, maxTokens, maxCostUsd, maxWallClock to bound it), ` +
        `and its tools edit files and run commands in the workspace, asking a human first unless the mode allows them. ${DURABLE} ` +
        `Follow it with run_events, answer its questions with answer_permission, collect it with run_result.`,
      inputSchema: {
        workspace: z.string().describe('absolute path of the directory the run may touch'),
        prompt: z.string().describe('what the agent should do'),
        mode: z.enum(['default', 'auto', 'plan', 'bypass']).optional().describe('permission mode (default: ask before writes and commands)'),
        model: z.string().optional().describe("model name (default: the worker's)"),
        maxIterations: z.number().int().positive().optional(),
        maxTokens: z.number().int().positive().optional(),
        maxCostUsd: z.number().positive().optional(),
        maxWallClock: z.string().optional().describe('such as "30m" or "2h"'),
        idleTimeout: z.string().optional().describe('stay open this long after an answer for send_message, such as "30m" (default: end with the answer)'),
        id: z.string().optional().describe('workflow id (default: generated)'),
      },
    },
    (args) =>
      answer(async () => {
        const started = await startCheckedRun(client, config, args.prompt, {
          workspace: args.workspace,
          ...(args.mode ? { mode: args.mode } : {}),
          ...(args.model ? { model: args.model } : {}),
          ...(args.maxIterations !== undefined ? { maxIterations: String(args.maxIterations) } : {}),
          ...(args.maxTokens !== undefined ? { maxTokens: String(args.maxTokens) } : {}),
          ...(args.maxCostUsd !== undefined ? { maxCost: String(args.maxCostUsd) } : {}),
          ...(args.maxWallClock ? { maxWallClock: args.maxWallClock } : {}),
          ...(args.idleTimeout ? { idleTimeout: args.idleTimeout } : {}),
          ...(args.id ? { id: args.id } : {}),
        });
        return ok({
          workflowId: started.workflowId,
          ui: runUiLink(ctx.uiPort, config.namespace, started.workflowId),
          ...(started.noWorker ? { warning: `No worker polls task queue "${config.taskQueue}": the run waits until one starts (bareagent worker).` } : {}),
        });
      }),
  );
  server.registerTool(
    'run_events',
    {
      title: "Read a run's status, questions and events",
      description:
        `A run's phase, iteration, budget left and usage, the permission questions it waits on (each with its requestId and inputDigest, what answer_permission needs), ` +
        `and up to ${MAX_EVENTS} of its events from an offset (text, tool calls and results, questions, steps, the end); call again with nextOffset for the rest. ` +
        `Free: reads only, spends no tokens. ${DURABLE}`,
      inputSchema: {
        workflowId: z.string(),
        fromOffset: z.number().int().min(0).optional().describe('the first event to return (default 0); nextOffset of the previous call'),
      },
    },
    (args) =>
      answer(async () => {
        const snapshot = await runSnapshot(client, args.workflowId, args.fromOffset ?? 0, MAX_EVENTS);
        const { status } = snapshot;
        return ok({
          workflowStatus: snapshot.workflowStatus,
          phase: status.phase,
          iteration: status.iteration,
          budgetLeft: status.budgetLeft,
          usage: status.usage,
          ...(status.costUsd !== undefined ? { costUsd: status.costUsd } : {}),
          questions: snapshot.questions,
          events: snapshot.events,
          nextOffset: snapshot.nextOffset,
          more: snapshot.more,
        });
      }),
  );
  server.registerTool(
    'answer_permission',
    {
      title: "Answer a run's permission question",
      description:
        `Allows or denies the tool call a run waits on. Pass the requestId and inputDigest that run_events listed: the answer holds only for that very question and input, ` +
        `and is refused when it was answered meanwhile (on the approvers' page, the CLI, another client) or asked again since. ` +
        `allow lets the call run (its effects on the workspace follow); allow_always also allows matching calls for the rest of the run (rule: e.g. "bash(npm test*)"). ` +
        `The run then resumes and spends tokens again. ${DURABLE}`,
      inputSchema: {
        workflowId: z.string(),
        requestId: z.string(),
        inputDigest: z.string().describe('the inputDigest run_events gave with the question'),
        decision: z.enum(['allow', 'deny', 'allow_always']),
        reason: z.string().optional(),
        rule: z.string().optional().describe('with allow_always: the rule to allow'),
      },
    },
    (args) =>
      answer(async () => {
        const status = await client.workflow.getHandle(args.workflowId).query(statusQuery);
        const question = openQuestions(status).find((q) => q.requestId === args.requestId);
        const source = `through bareagent mcp (${ctx.clientName()})`;
        const result = await sendDecision(client, question?.workflowId ?? args.workflowId, {
          requestId: args.requestId,
          decision: args.decision,
          inputDigest: args.inputDigest,
          reason: args.reason ? `${args.reason} (${source})` : `${args.decision === 'deny' ? 'denied' : 'allowed'} ${source}`,
          ...(args.rule ? { rule: args.rule } : {}),
        });
        return ok(result);
      }),
  );
  server.registerTool(
    'send_message',
    {
      title: 'Send a running run a follow-up',
      description:
        `Sends a follow-up message to a running run; the run reads it at its next safe boundary (never inside a model or tool call) and works on it, which costs tokens like any turn. ` +
        `A run that is idle after its answer takes it too. ${DURABLE}`,
      inputSchema: { workflowId: z.string(), text: z.string() },
    },
    (args) =>
      answer(async () => {
        const parsed = UserMessageInput.safeParse({ text: args.text });
        if (!parsed.success) throw new UsageError('The message is empty.');
        const handle = client.workflow.getHandle(args.workflowId);
        const { status } = await handle.describe();
        if (status.name !== 'RUNNING') throw new UsageError(`Run ${args.workflowId} is ${status.name.toLowerCase()}; it takes no more messages.`);
        await handle.signal(userMessageSignal, parsed.data);
        return ok({ workflowId: args.workflowId, sent: true });
      }),
  );
  server.registerTool(
    'run_result',
    {
      title: "Wait for a run's result",
      description:
        `Waits up to waitSeconds (default 30, at most ${MAX_WAIT_S}) for the run to end and returns its outcome: the final answer, or how it failed or was cancelled. ` +
        `When it has not ended by then, says so with its phase and open questions; call again. Waiting is free; the run keeps spending tokens while it works. ${DURABLE}`,
      inputSchema: {
        workflowId: z.string(),
        waitSeconds: z.number().min(0).max(MAX_WAIT_S).optional(),
      },
    },
    (args) =>
      answer(async () => {
        const waitMs = (args.waitSeconds ?? 30) * 1000;
        const timeout = new AbortController();
        const timer = setTimeout(() => timeout.abort(), waitMs);
        try {
          const outcome = await client.withAbortSignal(timeout.signal, () => runOutcome(client, args.workflowId)).catch((err: Error) => {
            if (timeout.signal.aborted) return undefined;
            throw err;
          });
          if (outcome) return ok({ done: true, ...outcome });
        } finally {
          clearTimeout(timer);
        }
        const status = await client.workflow.getHandle(args.workflowId).query(statusQuery);
        return ok({ done: false, phase: status.phase, iteration: status.iteration, questions: openQuestions(status) });
      }),
  );
}
