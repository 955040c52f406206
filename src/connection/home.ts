import os from 'node:os';
import path from 'node:path';

/**
 * The operator's own state: the embedded server's SQLite file, the approvers' page token, the
 * checkpoint stores, the bundle cache. Never under a project: a run's workspace is the current
 * directory by default, and whatever sits there the agent can read (SPEC §5). BAREAGENT_HOME, else
 * `$XDG_STATE_HOME/bareagent` (the XDG base directory for state that outlives a restart but is no
 * configuration: histories, tokens), else `~/.local/state/bareagent`.
 */
export function bareagentHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BAREAGENT_HOME) return path.resolve(env.BAREAGENT_HOME);
  // The XDG spec: a relative XDG_STATE_HOME is invalid and ignored.
  const stateHome = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(env.HOME || os.homedir(), '.local', 'state');
  return path.join(stateHome, 'bareagent');
}

/** The checkpoint stores: one bare git repository per workspace, in the home. */
export function checkpointsHome(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(bareagentHome(env), 'checkpoints');
}

/** Where BareAgent kept its state before: `.bareagent` of the directory it was started in, the workspace's own settings folder. */
export const OLD_HOME = '.bareagent';
