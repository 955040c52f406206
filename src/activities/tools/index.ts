import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { describeIssues } from '../../common/input';
import type { SandboxKind } from '../../common/sandbox';
import type { ToolOutcome, ToolRequest } from '../../common/tool-outcome';
import { declaredArgument } from '../../common/tool-descriptors';
import { builtInDescriptor, PATH_WRITING_TOOLS, toolSchemas, type ActivityToolName, type ToolArgs, type ToolName } from '../../common/tool-schemas';
import { checkpointWorkspace } from '../checkpoint-activities';
import { bash } from './bash';
import { editFile } from './edit-file';
import { glob } from './glob';
import { grep } from './grep';
import { readFile } from './read-file';
import { refuseReadOnlyLanding } from './read-only-landing';
import { workspaceRoot } from './workspace';
import { writeFile } from './write-file';

/** A handler returns its output, or its output and how it was confined (bash). */
type Handler<N extends ToolName> = (root: string, args: ToolArgs<N>, request: ToolRequest) => Promise<string | { output: string; sandbox: SandboxKind }>;

function toolActivity<N extends ToolName>(name: N, handler: Handler<N>) {
  return async (request: ToolRequest): Promise<ToolOutcome> => {
    const parsed = toolSchemas[name].safeParse(request.input);
    if (!parsed.success) {
      return { ok: false, errorType: 'InvalidArguments', message: describeIssues(parsed.error) };
    }
    let outcome: ToolOutcome;
    try {
      const root = workspaceRoot(request.workspace);
      if (PATH_WRITING_TOOLS.has(name)) refuseReadOnlyLanding(root, declaredArgument(builtInDescriptor(name), 'pathArgument', parsed.data), request.sandbox?.readOnlyFiles);
      const result = await handler(root, parsed.data as ToolArgs<N>, request);
      outcome = typeof result === 'string' ? { ok: true, output: result } : { ok: true, output: result.output, sandbox: result.sandbox };
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      outcome = { ok: false, errorType: error instanceof ApplicationFailure && error.type ? error.type : error.name, message: error.message };
    }
    if (!request.checkpoint) return outcome;
    // The checkpoint of what the tool just did, in the same activity: a file tool's path is all it
    // wrote (write_file, edit_file); after bash, a stat scan. A failed checkpoint is a value, as ever.
    const file = PATH_WRITING_TOOLS.has(name) ? declaredArgument(builtInDescriptor(name), 'pathArgument', parsed.data) : undefined;
    const paths = file !== undefined ? [file] : undefined;
    return { ...outcome, checkpoint: await checkpointWorkspace({ ...request.checkpoint, paths }) };
  };
}

/**
 * One activity per tool, named as the tool, so the Web UI's event list reads like the agent's work.
 * A built-in tool run by an activity (src/common/tool-schemas.ts) without its entry here does not compile.
 */
export const toolActivities: { [N in ActivityToolName]: (request: ToolRequest) => Promise<ToolOutcome> } = {
  read_file: toolActivity('read_file', readFile),
  write_file: toolActivity('write_file', (root, args, request) => writeFile(root, args, request.searchUsers)),
  edit_file: toolActivity('edit_file', (root, args, request) => editFile(root, args, request.fileRead, request.changedByEarlierEdit, request.searchUsers)),
  glob: toolActivity('glob', glob),
  grep: toolActivity('grep', grep),
  bash: toolActivity('bash', async (root, args, request) => {
    const context = Context.current();
    let sandbox: SandboxKind = 'bubblewrap';
    const started = Date.now();
    const output = await bash(root, args, {
      signal: context.cancellationSignal,
      // How long it has run: what the run can tell about a command whose worker was then lost.
      onTick: () => context.heartbeat({ runningMs: Date.now() - started }),
      ...(request.sandbox ? { sandbox: request.sandbox } : {}),
      ...(request.callId ? { callId: request.callId } : {}),
      onSandbox: (kind) => (sandbox = kind),
    });
    return { output, sandbox };
  }),
};
