import type { CheckpointRequest, CheckpointResult, CheckpointsView, RunCheckpoints, StepCheckpoint } from '../common/checkpoint';
import type { AgentRunConfig } from '../common/input';
import { parseRule } from '../loop/permission-rules';
import { canonicalPath, canonicalPrefix } from '../loop/workspace-path';
import { patched } from '@temporalio/workflow';
import { checkpointing, localCheckpointing } from './activity-proxies';
import { LAZY_START_CHECKPOINT } from './patches';
import { invalidInput } from './failures';
import type { RunReporter } from './run-reporter';
import type { RunState } from './run-state';
import { builtInDescriptor, isToolName, PATH_READING_TOOLS, PATH_WRITING_TOOLS, READ_ONLY_TOOLS } from '../common/tool-schemas';
import { declaredArgument } from '../common/tool-descriptors';

type Config = Omit<AgentRunConfig, 'resume'>;

/** The deny rules of the tools that read a file by its path (read_file) as workspace-relative paths (`secrets/*` for a prefix): a checkpoint leaves them out. */
export function deniedPaths(config: Config): string[] {
  const paths: string[] = [];
  for (const text of config.permissionRules.deny ?? []) {
    const rule = parseRule(text);
    if (!PATH_READING_TOOLS.has(rule.tool)) continue;
    if (rule.prefix) paths.push(`${canonicalPrefix(rule.argument ?? '')}*`);
    else paths.push(canonicalPath(rule.argument ?? ''));
  }
  return paths;
}

/**
 * The paths a round wrote, when its own file tools are all that can have changed the workspace:
 * every call a file tool or read-only, none of them an MCP tool, no job running or finished.
 * Undefined otherwise: the checkpoint scans.
 */
export function writtenPaths(round: { calls: ReadonlyArray<{ name: string; input: unknown }>; jobsFinished: boolean; jobsRunning: boolean; mcp: boolean }): string[] | undefined {
  if (round.jobsFinished || round.jobsRunning || round.mcp) return undefined;
  const paths: string[] = [];
  for (const call of round.calls) {
    if (READ_ONLY_TOOLS.has(call.name)) continue;
    // The built-in tools whose path argument names all they write.
    const file = PATH_WRITING_TOOLS.has(call.name) && isToolName(call.name) ? declaredArgument(builtInDescriptor(call.name), 'pathArgument', call.input) : undefined;
    if (file === undefined) return undefined;
    paths.push(file);
  }
  return paths;
}

/**
 * A checkpoint request: `changed` counts from `since` (the round's start; the newest checkpoint
 * when unset), and known paths apply on the run's newest checkpoint.
 */
export function checkpointRequest(config: Config, state: RunState, workflowId: string, label: string, deny: string[], options: { paths?: string[] | undefined; since?: string | undefined } = {}): CheckpointRequest {
  const base = state.checkpoints?.last;
  const previous = 'since' in options ? options.since : base;
  return {
    ...(config.workspace ? { workspace: config.workspace } : {}),
    workflowId,
    deny,
    ...(previous ? { previous } : {}),
    ...(base && base !== previous ? { base } : {}),
    label,
    ...(options.paths ? { paths: options.paths } : {}),
  };
}

async function take(config: Config, state: RunState, workflowId: string, label: string, deny: string[], options: { paths?: string[] | undefined; since?: string | undefined } = {}): Promise<CheckpointResult> {
  const request = checkpointRequest(config, state, workflowId, label, deny, options);
  const summary = `checkpoint of ${label}`;
  try {
    // On the worker that holds the workspace: the run's own (a local activity), or toolTaskQueue's.
    if (!config.toolTaskQueue) return await localCheckpointing.checkpointWorkspace.executeWithOptions({ summary }, [request]);
    return await checkpointing.checkpointWorkspace.executeWithOptions({ summary, taskQueue: config.toolTaskQueue }, [request]);
  } catch (err) {
    // Every attempt lost its worker: the run goes on without this checkpoint.
    return { ok: false, error: (err as Error).message };
  }
}

/** The newest snapshot's list of what it left out; a result recorded before the list existed has none. */
function leftOutOf(taken: CheckpointResult & { ok: true }): { leftOut?: string[] } {
  return taken.leftOut ? { leftOut: taken.leftOut } : {};
}

/**
 * Step 0: the workspace as the run found it, for `rewind --step 0`. Only a new run asks (a run
 * continued as new carries `state.checkpoints`). It is taken before the first round that may write
 * (`startCheckpointDue`), so a run that only reads takes none; until then nothing the run
 * did can have changed a file. A fork that restores files takes it at once: its step 0 is the
 * workspace before the restore. Runs recorded before took it here, at their start.
 */
export async function startCheckpoints(config: Config, state: RunState, workflowId: string): Promise<void> {
  if (config.checkpoints === false) return;
  const deny = deniedPaths(config);
  if (!config.forkFrom?.restoreFiles && patched(LAZY_START_CHECKPOINT)) {
    state.checkpoints = { deny, pending: true };
    return;
  }
  await takeStart(config, state, workflowId, deny);
}

/** Whether a round may change the workspace: anything but read-only tools, or a job that finished. */
function mayWrite(round: { calls: ReadonlyArray<{ name: string }>; jobsFinished: boolean }): boolean {
  return round.jobsFinished || !round.calls.every((call) => READ_ONLY_TOOLS.has(call.name));
}

/** Whether step 0 is still to take and this round may write: it is taken before any of the round's calls. */
export function startCheckpointDue(state: RunState, round: { calls: ReadonlyArray<{ name: string }>; jobsFinished: boolean }): boolean {
  return state.checkpoints?.pending === true && mayWrite(round);
}

/** Step 0, now (`startCheckpointDue`). */
export async function takeStartCheckpoint(config: Config, state: RunState, workflowId: string): Promise<void> {
  await takeStart(config, state, workflowId, state.checkpoints?.deny ?? deniedPaths(config));
}

async function takeStart(config: Config, state: RunState, workflowId: string, deny: string[]): Promise<void> {
  const taken = await take(config, state, workflowId, 'run start', deny);
  state.checkpoints = taken.ok ? { workspace: taken.workspace, store: taken.store, start: taken.id, last: taken.id, deny, ...leftOutOf(taken) } : { deny, error: taken.error };
}

/**
 * After a tool round that may have changed the workspace (anything but read-only tools, or a job
 * that finished meanwhile): a checkpoint, whose id goes on the step record.
 */
export async function checkpointAfterRound(
  config: Config,
  state: RunState,
  workflowId: string,
  round: { calls: ReadonlyArray<{ name: string; input: unknown }>; jobsFinished: boolean; jobsRunning: boolean; mcp: boolean; step: number; since?: string | undefined },
): Promise<StepCheckpoint | { error: string } | undefined> {
  const checkpoints: RunCheckpoints | undefined = state.checkpoints;
  if (!checkpoints || checkpoints.pending) return undefined;
  if (!mayWrite(round)) return undefined;
  // When some of the round's calls took a checkpoint of their own but not all, this one scans
  // and counts the changes from the round's start.
  const inTool = round.since !== undefined;
  const taken = await take(config, state, workflowId, `step ${round.step}`, checkpoints.deny, { paths: inTool ? undefined : writtenPaths(round), ...(inTool ? { since: round.since } : {}) });
  if (!taken.ok) return { error: taken.error };
  state.checkpoints = { ...checkpoints, workspace: taken.workspace, store: taken.store, last: taken.id, ...leftOutOf(taken) };
  return { id: taken.id, changed: taken.changed };
}

/** What a checkpoint taken inside a tool call makes of the run's checkpoints: the newest is it. */
export function noteCheckpoint(state: RunState, taken: CheckpointResult): void {
  if (!taken.ok || !state.checkpoints) return;
  state.checkpoints = { ...state.checkpoints, workspace: taken.workspace, store: taken.store, last: taken.id, ...leftOutOf(taken) };
}

/** The `checkpoints` query: step 0 (run start) and every step record that holds one. */
export function checkpointsView(state: RunState): CheckpointsView {
  const { workspace, store, start, deny = [], leftOut, error, pending } = state.checkpoints ?? {};
  const steps: CheckpointsView['steps'] = start ? [{ step: 0, id: start, changed: 0 }] : [];
  for (const record of state.steps) {
    const mark = record.checkpoint;
    if (mark && 'id' in mark) steps.push({ step: record.step_id, id: mark.id, changed: mark.changed });
  }
  return {
    ...(workspace ? { workspace } : {}),
    ...(store ? { store } : {}),
    deny,
    lastStep: state.steps.at(-1)?.step_id ?? 0,
    steps,
    ...(leftOut && leftOut.length > 0 ? { leftOut } : {}),
    ...(error ? { error } : {}),
    ...(pending ? { pending } : {}),
  };
}

/**
 * `forkFrom.restoreFiles`: the origin's snapshot back into the workspace before the fork's first
 * turn. The fork's own run-start checkpoint (step 0) was taken first, so `rewind --step 0` of the
 * fork undoes the restore; the activity also keeps the files it replaces on the fork's ref.
 */
export async function restoreFromOrigin(
  config: Config,
  state: RunState,
  workflowId: string,
  checkpoint: { store: string; id: string; step: number; leftOut?: string[] },
  report?: RunReporter,
): Promise<void> {
  const request = {
    ...(config.workspace ? { workspace: config.workspace } : {}),
    workflowId,
    store: checkpoint.store,
    id: checkpoint.id,
    deny: deniedPaths(config),
    ...(checkpoint.leftOut ? { leftOut: checkpoint.leftOut } : {}),
  };
  const options = { summary: `restore the files of step ${checkpoint.step}`, ...(config.toolTaskQueue ? { taskQueue: config.toolTaskQueue } : {}) };
  const restored = await checkpointing.restoreWorkspace.executeWithOptions(options, [request]);
  if (!restored.ok) throw invalidInput(`forkFrom.restoreFiles: ${restored.error}`);
  if (state.checkpoints) state.checkpoints = { ...state.checkpoints, last: checkpoint.id };
  // An event, no command: a result recorded before this field existed replays the same.
  if (restored.notRestored) {
    const lines = restored.notRestored.map((line) => `  ${line}`).join('\n');
    report?.publish({ type: 'status', step: 0, message: `Restored the files of step ${checkpoint.step} except what no checkpoint could hold; not put back:\n${lines}` });
  }
}
