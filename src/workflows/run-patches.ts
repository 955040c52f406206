import { patched } from '@temporalio/workflow';
import type { AgentRunConfig } from '../common/input';
import type { SandboxRequest } from '../common/sandbox';
import { ACCEPTANCE_FILES_READ_ONLY, DRAFT_FIRST, SYNTAX_GATE } from './patches';

/**
 * The patches whose branch a run takes later, asked in the run's first activation, where no local
 * activity has finished yet.
 *
 * Why there: on replay, Core finds a patch's marker only among the commands of the workflow task
 * being replayed. A local activity that finishes while the worker answers a query (or heartbeats
 * the task) has its marker sent with that task, and the code after it runs in the next one. A patch
 * asked by that code is recorded in the next task; on replay the same code runs within the earlier
 * task, finds no marker, and the run fails with a nondeterminism error (CI saw it: a status query
 * every 50 ms while the run-start checkpoint finished). The first activation follows no local
 * activity, so its markers are where replay looks.
 */
export interface RunPatches {
  acceptanceFilesReadOnly: boolean;
  draftFirst: boolean;
  /** Asked where a final answer is checked, too: a run of 0.3.0 recorded its marker there. */
  syntaxGate(): boolean;
}

export function askRunPatches(config: Pick<AgentRunConfig, 'draftFirst'>, sandbox: SandboxRequest, offered: ReadonlySet<string>): RunPatches {
  // Each asked only where its branch can be taken: a run without it commands nothing new.
  const acceptanceFilesReadOnly = (sandbox.readOnlyFiles?.length ?? 0) > 0 && patched(ACCEPTANCE_FILES_READ_ONLY);
  const draftFirst = config.draftFirst && patched(DRAFT_FIRST);
  const syntaxGateAtStart = (offered.has('write_file') || offered.has('edit_file')) && patched(SYNTAX_GATE);
  return { acceptanceFilesReadOnly, draftFirst, syntaxGate: () => syntaxGateAtStart || patched(SYNTAX_GATE) };
}
