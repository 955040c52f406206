import { INSTRUCTION_FILES, MAX_PROJECT_INSTRUCTIONS_CHARS, type ProjectInstructions } from '../common/project-instructions';
import { readWorkspaceFile } from './tools/read-workspace-file';
import { workspaceRoot } from './tools/workspace';

type Found = { file: string; content: string } | { file: string; error: string } | undefined;

/**
 * A directory's AGENTS.md, or CLAUDE.md when there is none, through the file tools' safe open: a
 * symlink out of the workspace (also one swapped in while it is read) is refused, so a repository
 * cannot get a file of the worker's (a key, say) sent to the model as "instructions"; a FIFO is
 * refused at once instead of holding the worker.
 */
async function readInstructionFile(root: string, dir: string): Promise<Found> {
  for (const name of INSTRUCTION_FILES) {
    const file = dir ? `${dir}/${name}` : name;
    try {
      const content = await readWorkspaceFile(root, file);
      if (content === undefined) continue;
      return { file, content: content.toString('utf8') };
    } catch (err) {
      return { file, error: `${file}: ${(err as Error).message}` };
    }
  }
  return undefined;
}

function capped(content: string, maxChars: number): { text: string; truncated: boolean } {
  if (content.length <= maxChars) return { text: content, truncated: false };
  return { text: `${content.slice(0, maxChars)}\n[truncated: ${content.length - maxChars} more characters]`, truncated: true };
}

/** At run start: the workspace root's instructions, capped. */
export async function readProjectInstructions(request: { workspace?: string }): Promise<ProjectInstructions> {
  const workspace = workspaceRoot(request.workspace);
  const found = await readInstructionFile(workspace, '');
  if (!found) return { files: [], text: '', workspace };
  if ('error' in found) return { files: [], text: '', error: found.error, workspace };
  const { text, truncated } = capped(found.content, MAX_PROJECT_INSTRUCTIONS_CHARS);
  return { files: [found.file], text, ...(truncated ? { truncated } : {}), workspace };
}

/**
 * When the run first touches a directory: the instructions of it and of the directories above it
 * (workspace-relative, root excluded), each under a heading that names its file, within what is
 * left of the cap.
 */
export async function readNestedInstructions(request: { workspace?: string; dirs: string[]; maxChars: number }): Promise<ProjectInstructions> {
  const root = workspaceRoot(request.workspace);
  const files: string[] = [];
  const parts: string[] = [];
  const errors: string[] = [];
  let left = request.maxChars;
  let truncated = false;
  for (const dir of request.dirs) {
    const found = await readInstructionFile(root, dir);
    if (!found) continue;
    if ('error' in found) {
      errors.push(found.error);
      continue;
    }
    if (left <= 0) {
      truncated = true;
      break;
    }
    const cut = capped(found.content, left);
    truncated ||= cut.truncated;
    files.push(found.file);
    parts.push(`## ${found.file}\n\n${cut.text.trim()}`);
    left -= cut.text.length;
  }
  return { files, text: parts.join('\n\n'), ...(truncated ? { truncated } : {}), ...(errors.length ? { error: errors.join('; ') } : {}) };
}
