import { patched } from '@temporalio/workflow';
import type { AgentRunConfig } from '../common/input';
import type { ProjectInstructions } from '../common/project-instructions';
import { instructionReading } from './activity-proxies';
import { PROJECT_INSTRUCTIONS } from './patches';

/** At the start of a new run, unless turned off: the workspace's AGENTS.md, read by the tool worker and recorded. */
export async function readInstructions(config: Omit<AgentRunConfig, 'resume'>): Promise<ProjectInstructions | undefined> {
  if (!config.projectInstructions || !patched(PROJECT_INSTRUCTIONS)) return undefined;
  return instructionReading.readProjectInstructions.executeWithOptions(
    { summary: 'project instructions (AGENTS.md)', ...(config.toolTaskQueue ? { taskQueue: config.toolTaskQueue } : {}) },
    [config.workspace ? { workspace: config.workspace } : {}],
  );
}

/** The system prompt's part for them: the file's text under a heading that names it. */
export function instructionsPrompt(found: ProjectInstructions | undefined): string | undefined {
  if (!found || found.files.length === 0 || !found.text.trim()) return undefined;
  return `# Project instructions (${found.files.join(', ')})\n\n${found.text.trim()}`;
}
