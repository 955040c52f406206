/** What a checkpoint activity is asked: the run's workspace, its ref and what it may not read. */
export interface CheckpointRequest {
  workspace?: string | undefined;
  /** The run's workflow id: its checkpoints are one chain of commits under a ref of its own. */
  workflowId: string;
  /** Workspace-relative paths (exact, or prefixes ending in `*`) that deny rules forbid to read_file. */
  deny: string[];
  /** The tree of the run's previous checkpoint: what `changed` counts against. */
  previous?: string | undefined;
  /**
   * The run's newest checkpoint, when it is not `previous` (a checkpoint taken inside each tool
   * call of a round counts the round's changes from the round's start): known paths apply on it.
   */
  base?: string | undefined;
  /** What the checkpoint is of, for its commit message: `step 3`, `run start`. */
  label: string;
  /**
   * The workspace paths the round's own file tools wrote (write_file, edit_file), when nothing
   * else can have changed the workspace since `previous`: only these are read. Unset: a stat scan.
   */
  paths?: string[] | undefined;
}

/** A snapshot of the workspace, or why none could be taken (a value: the run goes on). */
export type CheckpointResult =
  | {
      ok: true;
      /** The git tree id of the snapshot: content-addressed, the same files give the same id. */
      id: string;
      /** The workspace as the worker resolved it (real path). */
      workspace: string;
      /** The shadow repository that holds the snapshot, outside the workspace. */
      store: string;
      /** Files added, changed or removed since `previous` (all files when there is none). */
      changed: number;
      /** Files in the snapshot. */
      files: number;
      /** Files left out for their size, their type or the total cap. */
      skipped: number;
      /** `2 files changed: a.txt, b.txt`, for the Web UI. */
      summary: string;
      /** What the snapshot left out besides ignored and denied files: `sub/ (its own git repository)`. */
      leftOut?: string[];
    }
  | { ok: false; error: string };

/** Where a run's checkpoints live: carried across continue-as-new, read by `diff` and `rewind`. */
export interface RunCheckpoints {
  workspace?: string;
  store?: string;
  /** The snapshot of the workspace as the run found it: step 0. */
  start?: string;
  /**
   * Checkpoints are on but none is taken yet: step 0 waits for the first round that may write
   * (until then the workspace is as the run found it, so there is nothing to diff or rewind).
   */
  pending?: true;
  /** The newest snapshot: what the next one counts its changes against. */
  last?: string;
  /** The read_file deny rules as paths: never in a snapshot. */
  deny: string[];
  /** What the newest snapshot left out (nested repositories, excluded folders, files over the caps). */
  leftOut?: string[];
  error?: string;
}

/** What a step record keeps of its checkpoint. */
export interface StepCheckpoint {
  id: string;
  changed: number;
}

/** The `checkpoints` query: the run's store and each step's snapshot, step 0 being the run start. */
export interface CheckpointsView {
  workspace?: string;
  store?: string;
  deny: string[];
  lastStep: number;
  steps: Array<{ step: number; id: string; changed: number }>;
  leftOut?: string[];
  error?: string;
  /** No round could write yet: step 0 is taken before the first that may. */
  pending?: true;
}

/** Restoring a snapshot into the workspace (a fork's `restoreFiles`). */
export interface RestoreRequest {
  workspace?: string | undefined;
  workflowId: string;
  /** The store the snapshot is in: the origin's, which must be this workspace's own. */
  store: string;
  id: string;
  deny: string[];
  /** What the origin's snapshot could not hold, when known: it cannot come back. */
  leftOut?: string[];
}

export type RestoreResult =
  | {
      ok: true;
      changed: string[];
      saved: string;
      keptOutside?: string[];
      removedSpecial?: string[];
      /** What the restore could not put back, one line each: never among `changed`. */
      notRestored?: string[];
    }
  | { ok: false; error: string };

/** The snapshot in effect at a step: that step's, or the newest before it (a step of only reads takes none). */
export function checkpointAt(view: CheckpointsView, step: number): CheckpointsView['steps'][number] | undefined {
  return view.steps.filter((candidate) => candidate.step <= step).at(-1);
}
