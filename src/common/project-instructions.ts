/** What the run-start reading of the workspace's AGENTS.md (or CLAUDE.md) found; recorded in the history. */
export interface ProjectInstructions {
  /** Workspace-relative paths of the files used, in the order they appear in `text`. */
  files: string[];
  /** What goes into the system prompt, at most `MAX_PROJECT_INSTRUCTIONS_CHARS`. */
  text: string;
  /** Set when the files were longer than the cap and were cut. */
  truncated?: boolean;
  /** Set when a file exists but could not be read (e.g. a symlink out of the workspace). */
  error?: string;
  /** The workspace's real path the run-start read used (src/workflows/workspace-path.ts); none for nested reads. */
  workspace?: string;
}

export const MAX_PROJECT_INSTRUCTIONS_CHARS = 32 * 1024;

/** The file names read, first found wins: Codex's AGENTS.md, else Claude Code's CLAUDE.md. */
export const INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md'] as const;
