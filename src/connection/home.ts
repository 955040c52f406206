import path from 'node:path';

/** Where the embedded server's SQLite file and the bundle cache live. */
export function bareagentHome(env = process.env): string {
  return path.resolve(env.BAREAGENT_HOME || '.bareagent');
}
