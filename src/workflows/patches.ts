/**
 * The `patched()` ids of the agent run: one `export const NAME = 'id'` each, asked where the
 * behaviour changes, each with its entry in `src/common/patch-ledger.ts` (what the old branch keeps,
 * the day and version it shipped). 0.2.0 is the baseline, the first release: what changed the
 * commands of its runs since is asked here.
 *
 * The rule: a patch exists only for behaviour a release shipped. A change of what the workflow
 * commands (an activity, a timer, a marker, a search attribute, their order) that lands before
 * any release carries the old behaviour needs no patch: re-record the fixtures it changes
 * (`npm run record-histories`) and say so in the commit. Once a release shipped the old
 * behaviour, a run of that release may be open somewhere, so the change is asked with `patched()`
 * here and in the ledger, and its old branch stays until `bareagent patches` finds no open run
 * that may replay it. A change taken only when a recorded result asks for it (a field of an
 * activity's result that workers before it never set, as `readAhead` in a model call's) needs no
 * patch either: a run recorded before replays its old branch from its own history.
 */
/** The run-start checkpoint taken before the first round that may write, not at the start (0.2.0: at the start). */
export const LAZY_START_CHECKPOINT = 'lazy-start-checkpoint';
/** A final answer refused while a Python, JavaScript or JSON file the run changed no longer parses (0.2.0: taken). */
export const SYNTAX_GATE = 'syntax-gate';
/** A file tool's write of a file the acceptance command names refused (0.3.0: run like any write). */
export const ACCEPTANCE_FILES_READ_ONLY = 'acceptance-files-read-only';
/** A first turn that drafts the attached file (`draftFirst`, the `small-local` profile's) (0.3.0: a turn with tools from the start). */
export const DRAFT_FIRST = 'draft-first';
/** The tools an input's `disallowedTools` names (the `small-local` profile's: `subagent`, `background_run`) left out of what the run offers (0.3.0: every tool of the run's type). */
export const DISALLOWED_TOOLS = 'disallowed-tools';
