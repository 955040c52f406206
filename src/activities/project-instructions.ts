import { readFileSync } from 'node:fs';
import { INSTRUCTION_FILES, MAX_PROJECT_INSTRUCTIONS_CHARS, type ProjectInstructions } from '../common/project-instructions';
import { resolveInWorkspace, workspaceRoot } from './tools/workspace';

/**
 * At run start: the workspace root's AGENTS.md, or CLAUDE.md when there is none, capped. A
 * symlink that leads out of the workspace is refused like for read_file: a repository must not
 * get a file of the worker's (a key, say) sent to the model as "instructions".
 */
export async function readProjectInstructions(request: { workspace?: string }): Promise<ProjectInstructions> {
  const root = workspaceRoot(request.workspace);
  for (const name of INSTRUCTION_FILES) {
    let content: string;
    try {
      content = readFileSync(resolveInWorkspace(root, name), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      return { files: [], text: '', error: `${name}: ${(err as Error).message}` };
    }
    const truncated = content.length > MAX_PROJECT_INSTRUCTIONS_CHARS;
    const text = truncated ? `${content.slice(0, MAX_PROJECT_INSTRUCTIONS_CHARS)}\n[truncated: ${content.length - MAX_PROJECT_INSTRUCTIONS_CHARS} more characters]` : content;
    return { files: [name], text, ...(truncated ? { truncated } : {}) };
  }
  return { files: [], text: '' };
}
