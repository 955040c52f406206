/**
 * Notes that end a tool round with the next step, where a small model's traces showed it lost:
 * run the check after a write, answer once reads bring nothing new.
 */
import type { ToolCall, ToolResultBlock } from '../common/messages';
import { toolDescriptor } from '../common/tool-descriptors';

/**
 * How a tool result's note that names work the change left undone begins (the lines that still use
 * a name it took away, a JSON file that no longer parses): after such a result the round is not
 * told to run the check yet.
 */
export const STILL_TO_DO = 'Still to do:';

/** A longer acceptance command is not quoted in the note: the model is told to run the run's check, not shown all of it. */
const MAX_QUOTED_COMMAND = 300;

/**
 * Whether a round wrote a file and ran nothing after it: a call of a tool that writes the path it
 * names (`write_file`, `edit_file`) succeeded, and no call of the round ran a command or answered.
 * A round whose write's result names work still to do is not done writing: the renaming 1.5B
 * model, told to run the check right after such a result, ran it and undid its rename.
 */
export function wroteWithoutChecking(calls: readonly ToolCall[], results: readonly ToolResultBlock[]): boolean {
  if (results.some((result) => namesWorkLeft(result))) return false;
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

function namesWorkLeft(result: ToolResultBlock): boolean {
  return !result.is_error && result.content.includes(`\n\n${STILL_TO_DO} `);
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

/**
 * After a round of reads only, none with a result the run had not seen (the same call, the same
 * result): asked how many files a folder holds, the 1.5B model had the count from its first glob,
 * then read every file and globbed again, round after round, until the run stopped.
 */
export function nothingNewNote(answerTool: boolean): string {
  return `These results are the same as earlier calls of this run returned: nothing new. If what you have answers the task, ${answerTool ? 'call final_answer' : 'give your answer'} now; if not, try something else.`;
}

/** Whether a round only read, without error, and learned nothing its run had not seen. */
export function readNothingNew(calls: readonly ToolCall[], results: readonly ToolResultBlock[], newEvidence: number): boolean {
  return newEvidence === 0 && calls.length > 0 && calls.every((call) => toolDescriptor(call.name)?.effect === 'read') && results.every((result) => !result.is_error);
}
