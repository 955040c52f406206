/**
 * Every `patched()` id the agent run has asked, with what it keeps and where it stands. A patch
 * goes `active` (the old branch still runs for histories without its marker) → `deprecated`
 * (`deprecatePatch()`: the old branch is gone, the marker is still written so older workers can
 * replay new runs) → `removed` (the call is gone too). A branch may go only once no open run
 * started before its patch: `bareagent patches` lists those runs. `src/workflows/patches.ts`
 * holds the calls; `test/unit/patch-ledger.test.ts` keeps the two in step.
 */
export type PatchState = 'active' | 'deprecated' | 'removed';

export interface PatchEntry {
  id: string;
  /** The day (UTC) it landed on main; runs started before it may lack its marker. */
  shipped: string;
  /** The package version that first carried it. */
  version: string;
  /** What runs without its marker did, which the old branch reproduced on replay. */
  keeps: string;
  state: PatchState;
  /** When it left `active`, and why that was safe. */
  retired?: { on: string; why: string };
}

/**
 * 0.1.0 was never released: its patches guarded histories of development only. Before the first
 * release (0.2.0) they were folded into plain code, their old branches and markers removed, and the
 * replay fixtures re-recorded. From now on a patch exists only for behaviour a release shipped.
 */
const BASELINE = {
  on: '2026-12-02',
  why: 'folded into the 0.2.0 baseline: 0.1.0 was never released, so no run anywhere replays the old branch',
};

export const PATCH_LEDGER: readonly PatchEntry[] = [
  {
    id: 'parsed-shell-guard',
    shipped: '2026-11-30',
    version: '0.1.0',
    keeps: 'the guard that matched bash commands against pattern lists instead of parsing them',
    state: 'removed',
    retired: BASELINE,
  },
  {
    id: 'answers-per-request',
    shipped: '2026-11-30',
    version: '0.1.0',
    keeps: 'permission answers kept for the whole run, and tool-call ids taken as the provider sent them',
    state: 'removed',
    retired: BASELINE,
  },
  {
    id: 'replies-per-turn',
    shipped: '2026-11-30',
    version: '0.1.0',
    keeps: 'three truncation recoveries a run, and an empty reply taken as the answer',
    state: 'removed',
    retired: BASELINE,
  },
  {
    id: 'failures-by-action',
    shipped: '2026-11-30',
    version: '0.1.0',
    keeps: 'repeated failures counted per tool, stopping at three with no warning',
    state: 'removed',
    retired: BASELINE,
  },
  {
    id: 'tokens-from-usage',
    shipped: '2026-11-30',
    version: '0.1.0',
    keeps: 'context tokens estimated at four characters a token',
    state: 'removed',
    retired: BASELINE,
  },
  {
    id: 'children-end-with-run',
    shipped: '2026-11-30',
    version: '0.1.0',
    keeps: 'continue-as-new while children run (they end with the run that started them)',
    state: 'removed', retired: BASELINE,
  },
  { id: 'mcp-tools', shipped: '2026-11-30', version: '0.1.0', keeps: 'no MCP tool listing at run start', state: 'removed', retired: BASELINE },
  { id: 'project-instructions', shipped: '2026-11-30', version: '0.1.0', keeps: 'no AGENTS.md read at run start', state: 'removed', retired: BASELINE },
  { id: 'notify-human', shipped: '2026-11-30', version: '0.1.0', keeps: 'no webhook when a permission request opens', state: 'removed', retired: BASELINE },
  { id: 'hooks', shipped: '2026-11-30', version: '0.1.0', keeps: 'no hooks read at run start', state: 'removed', retired: BASELINE },
  { id: 'usage-estimates', shipped: '2026-11-30', version: '0.1.0', keeps: 'no usage estimate where the provider reported none', state: 'removed', retired: BASELINE },
  {
    id: 'nested-instructions',
    shipped: '2026-11-30',
    version: '0.1.0',
    keeps: 'no AGENTS.md read from the directories a tool round touches',
    state: 'removed', retired: BASELINE,
  },
  {
    id: 'local-read-tools',
    shipped: '2026-12-01',
    version: '0.1.0',
    keeps: 'read_file, glob and grep as ordinary activities',
    state: 'removed', retired: BASELINE,
  },
  {
    id: 'run-start-together',
    shipped: '2026-12-01',
    version: '0.1.0',
    keeps: 'the run-start reads one after the other, as ordinary activities',
    state: 'removed', retired: BASELINE,
  },
  {
    id: 'guarded-settings-files',
    shipped: '2026-12-01',
    version: '0.1.0',
    keeps: 'edit_file of .bareagent/ and AGENTS.md files without asking, write_file asking in default only',
    state: 'removed', retired: BASELINE,
  },
  {
    id: 'hooks-after-guard',
    shipped: '2026-12-01',
    version: '0.1.0',
    keeps: 'PreToolUse hooks run before the guard, for every call, unknown tools included',
    state: 'removed', retired: BASELINE,
  },
  {
    id: 'workspace-settings-snapshot',
    shipped: '2026-12-01',
    version: '0.1.0',
    keeps: 'hooks read by every run at its start (subagents included) and workspace MCP servers listed without a question',
    state: 'removed', retired: BASELINE,
  },
  {
    id: 'default-system-prompt',
    shipped: '2026-12-01',
    version: '0.1.0',
    keeps: 'no system prompt unless the input gave one, and no environment read at run start',
    state: 'removed', retired: BASELINE,
  },
  {
    id: 'worker-losses-uncounted',
    shipped: '2026-12-01',
    version: '0.1.0',
    keeps: 'a model call (and a repeatable MCP call) that lost its worker four times failed, the losses counted as provider attempts',
    state: 'removed', retired: BASELINE,
  },
  {
    id: 'may-have-run',
    shipped: '2026-12-01',
    version: '0.1.0',
    keeps: 'an at-most-once call lost with its worker gave the model an error result only: no may_have_run step, nothing in status',
    state: 'removed', retired: BASELINE,
  },
  {
    id: 'tree-budget',
    shipped: '2026-12-01',
    version: '0.1.0',
    keeps: 'each subagent with a budget of its own, its spend not counted against its parent',
    state: 'removed', retired: BASELINE,
  },
  {
    id: 'workspace-checkpoints',
    shipped: '2026-12-01',
    version: '0.1.0',
    keeps: 'no workspace snapshot at run start or after a tool round, and no checkpoint on the step records',
    state: 'removed', retired: BASELINE,
  },
  {
    id: 'checked-tool-calls',
    shipped: '2026-12-01',
    version: '0.1.0',
    keeps: 'blank command or file_path run as given, allow always on a blank argument allowing the bare tool, any number of jobs at once',
    state: 'removed', retired: BASELINE,
  },
  {
    id: 'parallel-read-only-calls',
    shipped: '2026-12-01',
    version: '0.1.0',
    keeps: 'every tool call of a reply run one after another, read-only ones too',
    state: 'removed', retired: BASELINE,
  },
  {
    id: 'sparse-iteration-attribute',
    shipped: '2026-12-01',
    version: '0.1.0',
    keeps: 'the BareAgentIterations search attribute upserted every iteration',
    state: 'removed', retired: BASELINE,
  },
  {
    id: 'lazy-start-checkpoint',
    shipped: '2026-12-03',
    version: '0.3.0',
    keeps: "the run-start checkpoint (step 0) taken at the run's start, beside the settings read, whether or not a round would write",
    state: 'active',
  },
  {
    id: 'syntax-gate',
    shipped: '2026-12-03',
    version: '0.3.0',
    keeps: 'a final answer taken without checking that the Python, JavaScript and JSON files the run changed still parse',
    state: 'active',
  },
  {
    id: 'acceptance-files-read-only',
    shipped: '2026-12-04',
    version: '0.4.0',
    keeps: "write_file and edit_file of a file the run's acceptance command names, run like any other write",
    state: 'active',
  },
  {
    id: 'draft-first',
    shipped: '2026-12-04',
    version: '0.4.0',
    keeps: "a small-local run's first turn with its tools and system prompt, no draft of the attached file",
    state: 'active',
  },
  {
    id: 'disallowed-tools',
    shipped: '2026-12-05',
    version: '0.4.0',
    keeps: 'a small-local run offered subagent and background_run, as every run of its type',
    state: 'active',
  },
];
