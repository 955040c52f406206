import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import { checkpointsHome } from '../connection/home';
import { ensurePrivateDir, PRIVATE_DIR_MODE, writePrivateFile } from '../connection/private-files';
import { git } from './git';

/**
 * Workspace attributes the store overrides: `info/attributes` outranks every `.gitattributes` of
 * the workspace, so a hostile one cannot name a filter, textconv or diff driver, an eol or an
 * encoding conversion: bytes are stored and restored as they are.
 */
const ATTRIBUTES = '* -filter !diff -merge -text !eol -ident -working-tree-encoding -export-subst\n';

/**
 * One shadow repository per canonical workspace path, under BAREAGENT_HOME/checkpoints, never in
 * the workspace (a worker refuses a workspace that overlaps it, src/connection/workspace-overlap.ts).
 */
export function storeFor(workspace: string, env = process.env): string {
  const digest = createHash('sha256').update(workspace).digest('hex').slice(0, 16);
  const name = path.basename(workspace).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40) || 'root';
  return path.join(checkpointsHome(env), `${name}-${digest}.git`);
}

/** The run's ref: its checkpoints and rewinds as one chain of commits, which keeps their objects. */
export function runRef(workflowId: string): string {
  const safe = workflowId.replace(/[^A-Za-z0-9._-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`).replace(/^\.|\.$/g, '_').replace(/\.\./g, '_.');
  return `refs/bareagent/runs/${safe}`;
}

/**
 * Creates the store once (init into a temporary name, then rename: a worker killed during init
 * leaves no half-made store under the real name) and writes its attributes every time. The stores
 * hold every workspace's files: their folder is 0700 (narrowed again each time, for a folder an
 * older version made), and git makes each store's own files 0600 (`--shared=0600`).
 */
export async function ensureStore(store: string): Promise<void> {
  const stores = path.dirname(store);
  ensurePrivateDir(stores);
  chmodSync(stores, PRIVATE_DIR_MODE);
  if (!existsSync(path.join(store, 'HEAD'))) {
    const temporary = `${store}.init-${process.pid}-${Date.now()}`;
    await git(['init', '--quiet', '--bare', '--shared=0600', temporary], { store: temporary });
    try {
      renameSync(temporary, store);
    } catch (err) {
      // Another worker made it first: theirs is as good as ours.
      if (!existsSync(path.join(store, 'HEAD'))) throw err;
    }
  }
  mkdirSync(path.join(store, 'info'), { recursive: true, mode: PRIVATE_DIR_MODE });
  writePrivateFile(path.join(store, 'info', 'attributes'), ATTRIBUTES);
}
