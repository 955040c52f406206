import type { AgentRunConfig } from '../common/input';
import type { ToolCall } from '../common/messages';
import { MAX_PROJECT_INSTRUCTIONS_CHARS, type ProjectInstructions } from '../common/project-instructions';
import { touchedDirectories } from '../loop/instruction-dirs';
import { instructionReading, readAtRunStart } from './activity-proxies';
import { attempt } from './failures';
import type { RunState } from './run-state';

/** At the start of a new run, unless turned off: the workspace's AGENTS.md, read by the tool worker and recorded. */
export async function readInstructions(config: Omit<AgentRunConfig, 'resume'>, local = false): Promise<ProjectInstructions | undefined> {
  if (!config.projectInstructions) return undefined;
  return readAtRunStart('readProjectInstructions', { local, remote: instructionReading, toolTaskQueue: config.toolTaskQueue }, 'project instructions (AGENTS.md)', [
    config.workspace ? { workspace: config.workspace } : {},
  ]);
}

/** Directories whose instructions are looked for at most once per conversation: a long run touches many. */
const MAX_DIRECTORIES = 200;

/**
 * After a tool round: the AGENTS.md of each directory the round touched for the first time (and of
 * those above it), read by the tool worker and added under the root's, as Codex does. Only runs
 * that read the root's at their start, and only new directories: a round in known places costs nothing.
 */
export async function readNestedInstructionsAfter(calls: readonly ToolCall[], config: Omit<AgentRunConfig, 'resume'>, state: RunState): Promise<void> {
  if (!state.instructions) return;
  const seen = new Set(state.instructionDirs ?? []);
  const fresh = touchedDirectories(calls, config.workspace).filter((dir) => !seen.has(dir)).slice(0, Math.max(0, MAX_DIRECTORIES - seen.size));
  if (fresh.length === 0) return;
  state.instructionDirs = [...seen, ...fresh];
  const left = MAX_PROJECT_INSTRUCTIONS_CHARS - state.instructions.text.length;
  const read = await attempt(() =>
    instructionReading.readNestedInstructions.executeWithOptions(
      { summary: `project instructions in ${fresh.join(', ')}`.slice(0, 200), ...(config.toolTaskQueue ? { taskQueue: config.toolTaskQueue } : {}) },
      [{ ...(config.workspace ? { workspace: config.workspace } : {}), dirs: fresh, maxChars: left }],
    ),
  );
  // A reading that failed for good leaves the run as it was, with the reason in `status`.
  const found: ProjectInstructions = read.ok ? read.value : { files: [], text: '', error: `${read.type}: ${read.message}` };
  if (found.files.length === 0 && !found.error) return;
  const current = state.instructions;
  state.instructions = {
    files: [...current.files, ...found.files],
    text: [current.text.trim(), found.text].filter(Boolean).join('\n\n'),
    ...(current.truncated || found.truncated ? { truncated: true } : {}),
    ...(current.error || found.error ? { error: [current.error, found.error].filter(Boolean).join('; ') } : {}),
  };
}

/** The system prompt's part for them: the file's text under a heading that names it. */
export function instructionsPrompt(found: ProjectInstructions | undefined): string | undefined {
  if (!found || found.files.length === 0 || !found.text.trim()) return undefined;
  return `# Project instructions (${found.files.join(', ')})\n\n${found.text.trim()}`;
}
