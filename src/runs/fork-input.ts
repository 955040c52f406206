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

/** The input fields the flags override (budgets apart: they merge key by key). */
function overridden(flags: ForkOverrides): Partial<AgentRunInput> {
  return {
    ...(flags.model ? { model: flags.model } : {}),
    ...(flags.maxIterations !== undefined ? { maxIterations: Number(flags.maxIterations) } : {}),
  };
}

/** Checked in the flags' terms (`--max-iterations must be a positive integer`), like `run`. */
function checked(input: unknown): AgentRunInput {
  const parsed = AgentRunInput.safeParse(input);
  if (!parsed.success) throw new UsageError(flagErrors(parsed.error));
  return input as AgentRunInput;
}

/** The overrides on their own, before anything is started or fetched (a server, the sandbox, the origin). */
export function checkForkOverrides(prompt: string, flags: ForkOverrides): void {
  checked({ prompt, budgets: budgetsFromFlags(flags), ...overridden(flags) });
}

/** The origin's input with the fork's prompt, link and overrides; budgets merge over the origin's, key by key. */
export function forkInput(origin: Origin, prompt: string, step: number | undefined, flags: ForkOverrides): AgentRunInput {
  return checked({
    ...origin.input,
    prompt,
    forkFrom: { workflowId: origin.workflowId, ...(step !== undefined ? { step } : {}), ...(flags.restoreFiles ? { restoreFiles: true } : {}) },
    ...overridden(flags),
    budgets: { ...(origin.input.budgets ?? {}), ...budgetsFromFlags(flags) },
  });
}
