import { realpath } from 'node:fs/promises';
import path from 'node:path';

/**
 * At the start of a top-level run, on the worker that holds the workspace: the one path the run
 * works in, symlinks resolved, recorded once. Every later activity of the run (fork authorisation,
 * tools, checkpoints, hooks, MCP, commands) gets this path and refuses it if it no longer resolves
 * to itself, so a workspace given as a link that is flipped afterwards moves nothing.
 * A path that does not exist is returned as given: the tools then say so, as before.
 */
export async function resolveWorkspace(request: { workspace?: string }): Promise<{ workspace: string }> {
  const absolute = path.resolve(request.workspace ?? process.cwd());
  return { workspace: await realpath(absolute).catch(() => absolute) };
}
