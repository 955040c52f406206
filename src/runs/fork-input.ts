import { AgentRunInput } from '../common/input';
import { budgetsFromFlags, type BudgetFlags } from './budget-flags';
import { flagErrors } from './flag-errors';
import type { Origin } from './origin-input';
import { UsageError } from './usage-error';

/** What a fork or a resume may change of its origin's input (the CLI's flags, the page's fork: none). */
export interface ForkOverrides extends BudgetFlags {
  model?: string;
  maxIterations?: string;
  restoreFiles?: boolean;
}

/** The origin's input with the fork's prompt, link and overrides; budgets merge over the origin's, key by key. */
export function forkInput(origin: Origin, prompt: string, step: number | undefined, flags: ForkOverrides): AgentRunInput {
  const budgets = { ...(origin.input.budgets ?? {}), ...budgetsFromFlags(flags) };
  const input = {
    ...origin.input,
    prompt,
    forkFrom: { workflowId: origin.workflowId, ...(step !== undefined ? { step } : {}), ...(flags.restoreFiles ? { restoreFiles: true } : {}) },
    ...(flags.model ? { model: flags.model } : {}),
    ...(flags.maxIterations !== undefined ? { maxIterations: Number(flags.maxIterations) } : {}),
    budgets,
  };
  // In the flags' terms (`--max-iterations must be a positive integer`), like `run`.
  const parsed = AgentRunInput.safeParse(input);
  if (!parsed.success) throw new UsageError(flagErrors(parsed.error));
  return input as AgentRunInput;
}
