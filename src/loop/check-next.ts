import type { ToolCall, ToolResultBlock } from '../common/messages';
import { toolDescriptor } from '../common/tool-descriptors';

/** A longer acceptance command is not quoted in the note: the model is told to run the run's check, not shown all of it. */
const MAX_QUOTED_COMMAND = 300;

/**
 * Whether a round wrote a file and ran nothing after it: a call of a tool that writes the path it
 * names (`write_file`, `edit_file`) succeeded, and no call of the round ran a command or answered.
 */
export function wroteWithoutChecking(calls: readonly ToolCall[], results: readonly ToolResultBlock[]): boolean {
  const succeeded = new Set(results.filter((result) => !result.is_error).map((result) => result.tool_use_id));
  const writes = calls.some((call) => {
    const tool = toolDescriptor(call.name);
    return tool?.pathArgument !== undefined && tool.effect !== 'read' && succeeded.has(call.id);
  });
  const checked = calls.some((call) => {
    const tool = toolDescriptor(call.name);
    return tool?.commandArgument !== undefined || tool?.effect === 'answer';
  });
  return writes && !checked;
}

/**
 * The next step after such a round, in a run with an acceptance check. Its fix written, the 1.5B
 * model went on writing (the read-only test file, more lines into the file it had just made) until
 * the run stopped, and never ran the check that would have ended the run (EVALS.md).
 */
export function checkNextNote(command: string): string {
  const check = command.length <= MAX_QUOTED_COMMAND && !command.includes('\n') ? `\`${command}\`` : 'its command';
  return `If that change finishes the task, run this run's acceptance check now (call bash with ${check}) and give your final answer once it passes.`;
}
