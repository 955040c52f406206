import { existsSync } from 'node:fs';
import { bareagentHome } from '../connection/home';
import { ensurePrivateDir } from '../connection/private-files';
import { operatorPlaces } from '../connection/workspace-overlap';

/**
 * The operator's state (the home, the checkpoint stores) as real paths, for the sandbox to cover
 * (bwrap-args.ts). The home is made first when missing, so that a command with a writable bind over
 * its parent cannot make it, with contents of its own, for the worker to use later.
 */
export function operatorDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  try {
    ensurePrivateDir(bareagentHome(env));
  } catch {
    // A home that cannot be made (a read-only parent) cannot be made by a command either.
  }
  return operatorPlaces(env)
    .map((place) => place.path)
    .filter((dir) => existsSync(dir));
}
