import { realpathSync } from 'node:fs';
import path from 'node:path';
import { bareagentHome, checkpointsHome } from './home';

/** A place of the operator's state, and what it holds (for the message). */
export interface OperatorPlace {
  path: string;
  what: string;
}

/** The operator's state a run's workspace must stay clear of, as canonical paths (a home not made yet resolves through its nearest existing parent). */
export function operatorPlaces(env: NodeJS.ProcessEnv = process.env): OperatorPlace[] {
  const home = canonical(bareagentHome(env));
  const stores = canonical(checkpointsHome(env));
  const places = [{ path: home, what: "BareAgent's home (BAREAGENT_HOME: the server's database, the approvers' page token, caches)" }];
  if (!isWithin(home, stores)) places.push({ path: stores, what: 'the checkpoint stores' });
  return places;
}

/**
 * Why a run must not work in `workspace` (canonical): it contains the operator's state, or lies
 * inside it. Either way the file tools and commands would reach the database of every run, the
 * page's token and the other workspaces' snapshots. The message names both paths and the fix.
 */
export function workspaceOverlap(workspace: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const root = canonical(workspace);
  for (const place of operatorPlaces(env)) {
    if (isWithin(root, place.path)) return `The workspace ${root} contains ${place.what} at ${place.path}: a run there could read and change it. Use a workspace outside it, or set BAREAGENT_HOME to a directory outside every workspace.`;
    if (isWithin(place.path, root)) return `The workspace ${root} lies inside ${place.what} at ${place.path}: a run there could read and change it. Use a workspace outside it.`;
  }
  return undefined;
}

function isWithin(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

/** The real path of `target`, or of its deepest existing parent joined with the rest. */
function canonical(target: string): string {
  const rest: string[] = [];
  let current = path.resolve(target);
  for (;;) {
    try {
      return path.join(realpathSync(current), ...rest);
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return path.resolve(target);
      rest.unshift(path.basename(current));
      current = parent;
    }
  }
}
