import type { AgentRunConfig } from '../common/input';
import type { LLMResponse } from '../common/messages';
import { fileAnswerRequest, type NamedFile } from '../loop/code-answer';
import { draftPlan, draftWrite } from '../loop/draft';
import type { Stop } from '../loop/transitions';
import { readAtRunStart, sourceReading } from './activity-proxies';
import { attempt } from './failures';
import type { ModelTurn } from './model-turn';
import type { RunState } from './run-state';

export interface DraftContext {
  config: Omit<AgentRunConfig, 'resume'>;
  state: RunState;
  offered: ReadonlySet<string>;
  model: ModelTurn;
  /** The acceptance check's test files: shown, never the draft's target. */
  readOnly: readonly string[];
  /** Whether the run may draft (a run of 0.3.0 had no draft turn: `RunPatches`). */
  patched: boolean;
}

/**
 * A run's first turn under `draftFirst`: the model is asked for the finished file exactly as the
 * model alone is (`bareagent eval --baseline model-alone`: the prompt, the attached files fenced
 * under their paths, "reply with the finished code"; no tools, no system prompt), and the turn's
 * reply is its text with one `write_file` of the target with that code placed in it. The write goes through the
 * guard like any call (a human in `default` mode sees its whole content), and the loop goes on with
 * its tools: the model runs the examples, fixes, answers. So the loop starts from the code the
 * model writes alone instead of from what it writes while juggling tools, which for a 1.5B model
 * was worse (EVALS.md). Undefined, for an ordinary turn, when no draft is due, a file cannot be
 * read whole, the call fails or the reply changes nothing.
 */
export async function draftTurn({ config, state, offered, model, readOnly, patched }: DraftContext, step: number): Promise<LLMResponse | Stop | undefined> {
  if (!patched) return undefined;
  const plan = draftPlan(config.draftFirst, config.prompt, state, offered, readOnly);
  if (plan === undefined) return undefined;
  const where = { local: !config.toolTaskQueue, remote: sourceReading, toolTaskQueue: config.toolTaskQueue };
  const files: NamedFile[] = [];
  for (const path of plan.shown) {
    const read = await attempt(() => readAtRunStart('readSourceFile', where, `draft: read ${path}`.slice(0, 200), [{ ...(config.workspace ? { workspace: config.workspace } : {}), path }]));
    if (!read.ok || !('text' in read.value)) return undefined;
    files.push({ path, text: read.value.text });
  }
  const called = await attempt(() => model.draft(fileAnswerRequest(config.prompt, files)));
  if (!called.ok) return undefined;
  const response = called.value;
  if ('kind' in response) return response; // the budget cannot pay for the call
  const write = draftWrite(response.text, files, plan.target, `draft-${step}`);
  // Only the write goes on in the conversation: the reply's other blocks (a test file echoed back)
  // were read by the model as work left to do, and it tried to write them (EVALS.md).
  return write ? { ...response, text: '', toolCalls: [write] } : undefined;
}
