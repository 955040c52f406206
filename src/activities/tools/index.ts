import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { describeIssues } from '../../common/input';
import type { SandboxKind } from '../../common/sandbox';
import type { ToolOutcome, ToolRequest } from '../../common/tool-outcome';
import { toolSchemas, type ToolArgs, type ToolName } from '../../common/tool-schemas';
import { checkpointWorkspace } from '../checkpoint-activities';
import { bash } from './bash';
import { editFile } from './edit-file';
import { glob } from './glob';
import { grep } from './grep';
import { readFile } from './read-file';
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
      const result = await handler(root, parsed.data as ToolArgs<N>, request);
      outcome = typeof result === 'string' ? { ok: true, output: result } : { ok: true, output: result.output, sandbox: result.sandbox };
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      outcome = { ok: false, errorType: error instanceof ApplicationFailure && error.type ? error.type : error.name, message: error.message };
    }
    if (!request.checkpoint) return outcome;
    // The checkpoint of what the tool just did, in the same activity: write_file's and edit_file's
    // path is all they wrote; after bash, a stat scan. A failed checkpoint is a value, as ever.
    const file = (parsed.data as { file_path?: unknown }).file_path;
    const paths = name === 'write_file' || name === 'edit_file' ? (typeof file === 'string' ? [file] : undefined) : undefined;
    return { ...outcome, checkpoint: await checkpointWorkspace({ ...request.checkpoint, paths }) };
  };
}

/** One activity per tool, named as the tool, so the Web UI's event list reads like the agent's work. */
export const toolActivities = {
  read_file: toolActivity('read_file', readFile),
  write_file: toolActivity('write_file', writeFile),
  edit_file: toolActivity('edit_file', (root, args, request) => editFile(root, args, request.fileRead, request.changedByEarlierEdit)),
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
