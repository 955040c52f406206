import type { ToolCall } from '../../common/messages';
import type { ReadAheadRequest, ReadAheadResult } from '../../common/read-ahead';
import type { ToolOutcome, ToolRequest } from '../../common/tool-outcome';
import { builtInDescriptor, isToolName, READ_ONLY_TOOLS, toolSchemas } from '../../common/tool-schemas';
import { createPolicy, type PermissionPolicy } from '../../loop/permissions';
import { runGuard } from '../../loop/run-guard';
import { checkArguments } from '../../common/tool-arguments';

/** The worker's read-only tool activities, by tool name, as the run's local activities would run them. */
export type ReadTools = Readonly<Record<string, (request: ToolRequest) => Promise<ToolOutcome>>>;

/** The run's own guard; `sandbox.writableGit` changes only what a command's question says. */
const guard = runGuard(false);

/** How much of the model call's result the reads may take at most: reads past it are left to the workflow's own local activities. */
const MAX_READ_AHEAD_BYTES = 1_000_000;

/**
 * The reply's calls run now, when every one of them is a read-only built-in tool the request names,
 * with valid arguments and no deny rule against it; else none is. Never throws: a read that fails
 * to run, or does not fit in `roomBytes` of the result, is a null, and the workflow runs that call itself.
 */
export async function readAhead(calls: readonly ToolCall[], request: ReadAheadRequest | undefined, tools: ReadTools, roomBytes: number): Promise<Array<ReadAheadResult | null> | undefined> {
  if (!request || calls.length === 0) return undefined;
  const policy = createPolicy(request.mode, { deny: request.deny ?? [] });
  const planned: Array<{ name: string; input: unknown }> = [];
  for (const call of calls) {
    const runs = plan(call, request, policy, tools);
    if (!runs) return undefined;
    planned.push(runs);
  }
  const results = await Promise.all(planned.map(({ name, input }) => run(tools[name]!, request.workspace, input)));
  let left = Math.min(roomBytes, MAX_READ_AHEAD_BYTES);
  return results.map((result) => {
    if (!result) return null;
    left -= Buffer.byteLength(JSON.stringify(result)) + 1;
    return left >= 0 ? result : null;
  });
}

/** The arguments the workflow's pipeline would run the call with, when it would run it without asking anyone. */
function plan(call: ToolCall, request: ReadAheadRequest, policy: PermissionPolicy, tools: ReadTools): { name: string; input: unknown } | undefined {
  const { name } = call;
  if (call.parseError || !isToolName(name) || !READ_ONLY_TOOLS.has(name) || !request.tools.includes(name) || !tools[name]) return undefined;
  const checked = checkArguments(builtInDescriptor(name), toolSchemas[name], call.input);
  if ('invalid' in checked) return undefined;
  if (guard(policy, name, checked.args).behavior !== 'allow') return undefined;
  return { name, input: checked.args };
}

async function run(tool: (request: ToolRequest) => Promise<ToolOutcome>, workspace: string | undefined, input: unknown): Promise<ReadAheadResult | null> {
  try {
    return { input, outcome: await tool({ ...(workspace ? { workspace } : {}), input }) };
  } catch {
    return null;
  }
}
