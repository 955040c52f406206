import { Context } from '@temporalio/activity';
import { describeIssues } from '../../common/input';
import type { ToolOutcome, ToolRequest } from '../../common/tool-outcome';
import { toolSchemas, type ToolArgs, type ToolName } from '../../common/tool-schemas';
import { bash } from './bash';
import { editFile } from './edit-file';
import { glob } from './glob';
import { grep } from './grep';
import { readFile } from './read-file';
import { workspaceRoot } from './workspace';
import { writeFile } from './write-file';

type Handler<N extends ToolName> = (root: string, args: ToolArgs<N>) => Promise<string>;

function toolActivity<N extends ToolName>(name: N, handler: Handler<N>) {
  return async (request: ToolRequest): Promise<ToolOutcome> => {
    const parsed = toolSchemas[name].safeParse(request.input);
    if (!parsed.success) {
      return { ok: false, errorType: 'InvalidArguments', message: describeIssues(parsed.error) };
    }
    try {
      const root = workspaceRoot(request.workspace);
      return { ok: true, output: await handler(root, parsed.data as ToolArgs<N>) };
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      return { ok: false, errorType: error.name, message: error.message };
    }
  };
}

/** One activity per tool, named as the tool, so the Web UI's event list reads like the agent's work. */
export const toolActivities = {
  read_file: toolActivity('read_file', readFile),
  write_file: toolActivity('write_file', writeFile),
  edit_file: toolActivity('edit_file', editFile),
  glob: toolActivity('glob', glob),
  grep: toolActivity('grep', grep),
  bash: toolActivity('bash', (root, args) => {
    const context = Context.current();
    return bash(root, args, { signal: context.cancellationSignal, onTick: () => context.heartbeat() });
  }),
};
