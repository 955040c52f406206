import type { ScriptStep } from '../support/scripted-model-server';
import { withoutRunContext } from '../support/prompt-sent';

export const TOOL_ROUNDS = 9; // + the final answer: 10 iterations per run
export const FINAL_TEXT = `All ${TOOL_ROUNDS} rounds done.`;
const USAGE = { prompt_tokens: 100, completion_tokens: 10 };

// The scripted model: its answer is a function of the conversation (the run id in the prompt and
// the number of assistant messages so far), so a retried model call gets the same answer.

export type Call = { id: string; name: string; arguments: Record<string, unknown> };

export function callsOfRound(runId: string, n: number): Call[] {
  const calls: Call[] = [
    // at most once: one line in calls.log per execution
    { id: `${runId}.b${n}`, name: 'bash', arguments: { command: `echo ${runId}.b${n} >> calls.log; sleep 0.5` } },
  ];
  if (n % 3 === 1) {
    // at most once: each execution appends one "+" after the marker (a second run would match again)
    calls.push({ id: `${runId}.e${n}`, name: 'edit_file', arguments: { file_path: 'edits.txt', old_text: `[e${n}]`, new_text: `[e${n}]+` } });
  } else if (n % 3 === 2) {
    // at least once: the same content every time
    calls.push({ id: `${runId}.w${n}`, name: 'write_file', arguments: { file_path: `out/w${n}.txt`, content: `${runId} w${n}\n` } });
  } else {
    calls.push({ id: `${runId}.r${n}`, name: 'read_file', arguments: { file_path: 'notes.txt' } });
    calls.push({ id: `${runId}.g${n}`, name: 'grep', arguments: { pattern: 'needle', path: '.', include: '*.txt' } });
  }
  return calls;
}

export function chaosModel(body: { messages: Array<{ role: string; content: unknown }> }): ScriptStep {
  const prompt = withoutRunContext(String(body.messages.find((m) => m.role === 'user')?.content ?? ''));
  const runId = prompt.replace(/^chaos /, '');
  const round = body.messages.filter((m) => m.role === 'assistant').length + 1;
  if (round > TOOL_ROUNDS) return { text: FINAL_TEXT, usage: USAGE };
  return { text: `Round ${round}.`, toolCalls: callsOfRound(runId, round), usage: USAGE };
}

export const SEED_FILES = { 'notes.txt': 'a needle in a haystack\n', 'edits.txt': '[e1]\n[e4]\n[e7]\n' };
