/**
 * The same agent loop without Temporal: what a user would write BareAgent-style. It calls the
 * very activity functions the worker registers (callModel, the tool activities) directly, in a
 * MockActivityEnvironment for their activity Context, and the same pure loop modules the
 * workflow uses (permission guard, tool results, responseToMessage, the compaction check).
 * The gap between this and `agentRun` per iteration is the cost of durability.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createActivities } from '../src/activities';
import type { ModelRequest } from '../src/common/model-request';
import type { ProviderConfig } from '../src/connection/provider-config';
import { describeIssues } from '../src/common/input';
import type { ToolOutcome, ToolRequest } from '../src/common/tool-outcome';
import { responseToMessage, type LLMResponse, type Message, type ToolCall, type ToolResultBlock } from '../src/common/messages';
import { isToolName, toolSchemas, WORKFLOW_TOOL_NAMES } from '../src/common/tool-schemas';
import { agentType, toolsFor } from '../src/loop/agent-types';
import { DEFAULT_COMPACTION, planCompaction } from '../src/loop/compaction';
import { checkPermission, createPolicy, type PermissionPolicy } from '../src/loop/permissions';
import { deniedResult, handlerErrorResult, toolResult, unknownToolResult } from '../src/loop/tool-results';

type Activities = ReturnType<typeof createActivities>;

export interface PlainLoopOptions {
  provider: ProviderConfig;
  /** The scripted model's scenario name. */
  model: string;
  prompt: string;
  workspace: string;
  maxIterations: number;
  /** Called with the duration of each model call and tool call, ms. */
  onTiming?: (kind: 'model' | 'tool', ms: number) => void;
}

/** Runs the loop to its final answer; returns the number of model calls. */
export async function plainLoop(options: PlainLoopOptions): Promise<number> {
  const activities = createActivities({ provider: options.provider });
  const env = new MockActivityEnvironment({}, { logger: new DefaultLogger('ERROR') });
  const policy = createPolicy('default');
  const offered = new Set(toolsFor(agentType('general-purpose')!, 0));
  const messages: Message[] = [{ role: 'user', content: options.prompt }];
  for (let iteration = 1; iteration <= options.maxIterations; iteration++) {
    // The workflow checks the context size before every call; under the threshold it is a no-op.
    if (planCompaction(messages, DEFAULT_COMPACTION).kind !== 'none') throw new Error('the plain loop does not compact');
    const modelStarted = performance.now();
    const response = await env.run<[ModelRequest], LLMResponse, Activities['callModel']>(activities.callModel, { model: options.model, messages, tools: [...offered], stream: false, step: iteration });
    options.onTiming?.('model', performance.now() - modelStarted);
    messages.push(responseToMessage(response));
    if (response.toolCalls.length === 0) return iteration;
    const results: ToolResultBlock[] = [];
    for (const call of response.toolCalls) {
      const toolStarted = performance.now();
      results.push(await runTool(call, { env, activities, policy, offered, workspace: options.workspace }));
      options.onTiming?.('tool', performance.now() - toolStarted);
    }
    messages.push({ role: 'user', content: results });
  }
  throw new Error(`plain loop exceeded ${options.maxIterations} iterations`);
}

interface ToolContext {
  env: MockActivityEnvironment;
  activities: Activities;
  policy: PermissionPolicy;
  offered: ReadonlySet<string>;
  workspace: string;
}

/** src/workflows/tool-dispatch.ts without the workflow: guard, handler by name, result. No human here. */
async function runTool(call: ToolCall, context: ToolContext): Promise<ToolResultBlock> {
  if (!isToolName(call.name) || !context.offered.has(call.name) || WORKFLOW_TOOL_NAMES.has(call.name)) return unknownToolResult(call.id, call.name);
  if (call.parseError) return handlerErrorResult(call.id, 'InvalidArguments', `${call.name}: ${call.parseError}`);
  const parsed = toolSchemas[call.name].safeParse(call.input);
  if (!parsed.success) return handlerErrorResult(call.id, 'InvalidArguments', `${call.name}: ${describeIssues(parsed.error)}`);
  if (checkPermission(context.policy, call.name, parsed.data).behavior !== 'allow') return deniedResult(call.id);
  const activity = context.activities[call.name as keyof typeof context.activities] as (request: ToolRequest) => Promise<ToolOutcome>;
  const outcome = await context.env.run<[ToolRequest], ToolOutcome, typeof activity>(activity, { workspace: context.workspace, input: parsed.data });
  if (!outcome.ok) return handlerErrorResult(call.id, outcome.errorType, outcome.message);
  return toolResult(call.id, outcome.output, outcome.isError ?? false);
}
