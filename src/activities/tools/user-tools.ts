import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { describeIssues } from '../../common/input';
import type { ToolOutcome, ToolRequest } from '../../common/tool-outcome';
import { checkpointWorkspace } from '../checkpoint-activities';
import type { ToolDefinition } from './define-tool';
import { capOutput } from './limits';

/**
 * One activity per tool of the worker's own code, named as the tool. Its arguments are checked
 * again with the tool's own zod schema (the workflow checked them against its JSON schema); what
 * `execute` returns is capped as a built-in tool's output is; what it throws is an error result.
 */
export function userToolActivities(tools: readonly ToolDefinition[]): Record<string, (request: ToolRequest) => Promise<ToolOutcome>> {
  return Object.fromEntries(tools.map((tool) => [tool.name, userToolActivity(tool)]));
}

function userToolActivity(tool: ToolDefinition) {
  return async (request: ToolRequest): Promise<ToolOutcome> => {
    const parsed = tool.parameters.safeParse(request.input);
    if (!parsed.success) return { ok: false, errorType: 'InvalidArguments', message: describeIssues(parsed.error) };
    let outcome: ToolOutcome;
    try {
      const result: unknown = await tool.execute(parsed.data, { workspace: request.workspace, signal: Context.current().cancellationSignal, callId: request.callId });
      outcome = { ok: true, output: capOutput(typeof result === 'string' ? result : (JSON.stringify(result) ?? '')) };
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      outcome = { ok: false, errorType: error instanceof ApplicationFailure && error.type ? error.type : error.name, message: capOutput(error.message) };
    }
    // A writing tool's checkpoint: what it wrote is unknown here, so the checkpoint scans.
    return request.checkpoint ? { ...outcome, checkpoint: await checkpointWorkspace(request.checkpoint) } : outcome;
  };
}
