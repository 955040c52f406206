import { z } from 'zod';

/**
 * A workspace file that a trusted setting's command runs (a hook's script, an MCP server's
 * program), with the digest it had when the run started: every later run of that command checks
 * it first. `sha256: null` pins the file's absence (a program the agent could create later).
 */
export const PinnedFile = z.strictObject({ path: z.string().min(1), sha256: z.string().nullable() });
export type PinnedFile = z.output<typeof PinnedFile>;

/** What a command is known to run from the workspace. */
export interface CommandPins {
  pins: PinnedFile[];
  /** Why it may run workspace code that no digest covers (a computed word, `python -m`, a directory, a build tool). */
  unpinned?: string;
}
