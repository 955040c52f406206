import { mkdirSync, readdirSync, realpathSync, symlinkSync, statSync } from 'node:fs';
import path from 'node:path';

/** What a bare machine lacks: the system packages the project used to need (none is needed now). */
export const HIDDEN_TOOLS = ['bwrap', 'socat', 'chromium', 'chromium-browser', 'tmux'];

/**
 * A PATH of one folder holding a link to every program of `searchPath` but `hidden`: this
 * machine's tools (node, npm, git, python3 with pip) as a new user's, without the system packages.
 * The first of a name wins, as it would on the PATH itself.
 */
export function barePath(dir: string, searchPath = process.env.PATH ?? '', hidden = HIDDEN_TOOLS, options: { forOthers?: boolean } = {}): string {
  mkdirSync(dir, { recursive: true });
  const seen = new Set<string>();
  for (const folder of searchPath.split(':').filter(Boolean)) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      if (seen.has(name) || hidden.includes(name)) continue;
      const file = path.join(folder, name);
      try {
        if (!statSync(file).isFile()) continue;
        if (options.forOthers && !othersCanRun(file)) continue;
      } catch {
        continue;
      }
      seen.add(name);
      symlinkSync(file, path.join(dir, name));
    }
  }
  return dir;
}

/**
 * Whether a user who owns nothing here and is in no group (the new-machine test's `nobody`) can run
 * `file`: it and every folder on the way to it, as named and as resolved, let others in. A tool
 * behind root's 0700 home (pyenv's python3) is not that user's, who finds the next one on PATH.
 */
function othersCanRun(file: string): boolean {
  const onTheWay = (target: string) => target.split('/').slice(1, -1).map((_, i, parts) => `/${parts.slice(0, i + 1).join('/')}`);
  const folders = [...onTheWay(file), ...onTheWay(realpathSync(file))];
  return folders.every((folder) => (statSync(folder).mode & 0o001) !== 0) && (statSync(file).mode & 0o001) !== 0;
}

// `tsx test/new-machine/bare-path.ts DIR` (.ci/run's npm test stage): makes DIR and prints it.
if (require.main === module) {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: tsx test/new-machine/bare-path.ts DIR');
  console.log(barePath(path.resolve(dir)));
}
