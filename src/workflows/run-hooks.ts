import { ActivityCancellationType, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { HookEvent, HooksConfig, HookSpec } from '../common/hooks';
import type { AgentRunConfig } from '../common/input';
import type { ToolCall, ToolResultBlock } from '../common/messages';
import type { SandboxRequest } from '../common/sandbox';
import type { PendingPermission } from '../common/wire';
import { hooksFor, hookVerdict, type HookVerdict } from '../loop/hook-decisions';
import type { Transition } from '../loop/transitions';
import { attempt } from './failures';

export interface RunHooksContext {
  config: Omit<AgentRunConfig, 'resume'>;
  hooks(): HooksConfig | undefined;
  sandbox: SandboxRequest;
  workflowId: string;
  record(transition: Transition): void;
}

/**
 * The run's hooks, each an activity on the tool worker, in the sandbox, at most once (a hook may
 * have side effects). A hook that fails or times out is recorded as a step and changes nothing.
 */
export class RunHooks {
  constructor(private readonly context: RunHooksContext) {}

  /** The reason the first blocking PreToolUse hook gave, if one blocked. */
  async preToolUse(call: ToolCall): Promise<string | undefined> {
    for (const hook of hooksFor(this.context.hooks()?.hooks, 'PreToolUse', call.name, call.input)) {
      const verdict = await this.run(hook, { ...this.base('PreToolUse'), tool_name: call.name, tool_input: call.input, tool_use_id: call.id });
      // Fails closed: a hook that was not run (its script changed) never lets the call through.
      if (verdict.kind === 'refused') return `the hook \`${hook.command}\` was not run: ${verdict.reason}`;
      if (verdict.kind === 'block') {
        this.context.record({ kind: 'hook_blocked', event: 'PreToolUse', reason: verdict.reason, call });
        return verdict.reason;
      }
    }
    return undefined;
  }

  /** What PostToolUse hooks that "block" tell the model about the result (the call already ran). */
  async postToolUse(call: ToolCall, result: ToolResultBlock): Promise<string[]> {
    const feedback: string[] = [];
    for (const hook of hooksFor(this.context.hooks()?.hooks, 'PostToolUse', call.name, call.input)) {
      const input = { ...this.base('PostToolUse'), tool_name: call.name, tool_input: call.input, tool_use_id: call.id, tool_response: { content: result.content, is_error: result.is_error } };
      const verdict = await this.run(hook, input);
      if (verdict.kind === 'block') feedback.push(verdict.reason);
      if (verdict.kind === 'refused') feedback.push(`the PostToolUse hook \`${hook.command}\` was not run: ${verdict.reason}`);
    }
    return feedback;
  }

  /** The reason a Stop hook refused the final answer, if one did. */
  async stop(lastText: string, refusedBefore: boolean): Promise<string | undefined> {
    for (const hook of hooksFor(this.context.hooks()?.hooks, 'Stop')) {
      const verdict = await this.run(hook, { ...this.base('Stop'), last_assistant_message: lastText, stop_hook_active: refusedBefore });
      if (verdict.kind === 'block') return verdict.reason;
      if (verdict.kind === 'refused') return `the Stop hook \`${hook.command}\` was not run: ${verdict.reason}`;
    }
    return undefined;
  }

  /** The run starts waiting for a human: PermissionRequest and Notification hooks, not waited for. */
  waiting(request: PendingPermission): void {
    const hooks = [...hooksFor(this.context.hooks()?.hooks, 'PermissionRequest', request.tool, request.input), ...hooksFor(this.context.hooks()?.hooks, 'Notification')];
    for (const hook of hooks) {
      const input = { ...this.base(hook.event), tool_name: request.tool, tool_input: request.input, request_id: request.requestId, deadline: request.deadline, message: `BareAgent needs your permission to use ${request.tool}` };
      void this.run(hook, input).catch(() => undefined);
    }
  }

  private base(event: HookEvent) {
    return { hook_event_name: event, session_id: this.context.workflowId, cwd: this.context.config.workspace ?? null };
  }

  private async run(hook: HookSpec, input: Record<string, unknown>): Promise<HookVerdict> {
    const { config } = this.context;
    const activities = proxyActivities<Activities>({
      startToCloseTimeout: `${hook.timeout + 30} seconds`,
      heartbeatTimeout: '20 seconds',
      retry: { maximumAttempts: 1 },
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      ...(config.toolTaskQueue ? { taskQueue: config.toolTaskQueue } : {}),
    });
    const run = await attempt(() =>
      activities.runHook.executeWithOptions({ summary: `hook ${hook.event}: ${hook.command}`.slice(0, 200) }, [
        {
          ...(config.workspace ? { workspace: config.workspace } : {}),
          command: hook.command,
          input,
          timeoutSeconds: hook.timeout,
          sandbox: this.context.sandbox,
          ...(hook.pins ? { pins: hook.pins } : {}),
        },
      ]),
    );
    const verdict: HookVerdict = run.ok ? hookVerdict(hook, run.value) : { kind: 'failed', error: run.message };
    if (verdict.kind === 'failed') this.context.record({ kind: 'hook_failed', event: hook.event, command: hook.command, error: verdict.error });
    if (verdict.kind === 'refused') this.context.record({ kind: 'hook_refused', event: hook.event, command: hook.command, reason: verdict.reason });
    return verdict;
  }
}
