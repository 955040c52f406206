import { createHash } from 'node:crypto';
import { chmodSync, existsSync, renameSync } from 'node:fs';
import path from 'node:path';
import { checkpointsHome } from '../connection/home';
import { ensurePrivateDir, PRIVATE_DIR_MODE } from '../connection/private-files';
import { git } from './git';
import { keepStoreFile } from './store-files';
import { guardStore } from './store-guard';

/**
 * Workspace attributes the store overrides: `info/attributes` outranks every `.gitattributes` of
 * the workspace, so a hostile one cannot name a filter, textconv or diff driver, an eol or an
 * encoding conversion: bytes are stored and restored as they are.
 */
const ATTRIBUTES = '* -filter !diff -merge -text !eol -ident -working-tree-encoding -export-subst\n';

/**
 * The store's own config, written every time: nothing planted in it (an include, a command) is read.
 * Its objects are the workspace's files: git makes them 0600 (`sharedRepository`).
 */
const CONFIG = '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n\tlogAllRefUpdates = false\n\tsharedRepository = 0600\n';

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
 * leaves no half-made store under the real name), checks it has nothing planted where git writes
 * (store-guard.ts), and writes its config, attributes and excludes every time, each replacing
 * whatever is at that name (store-files.ts): a symlink there is replaced, never written through
 * (one that already holds exactly that, as a regular file of its own, is left as it is).
 * The stores hold every workspace's files: their folder is 0700 (narrowed again each time, for a
 * folder an older version made), and the files the worker and git write in them are 0600.
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
  guardStore(store);
  keepStoreFile(path.join(store, 'config'), CONFIG);
  keepStoreFile(path.join(store, 'HEAD'), 'ref: refs/heads/master\n');
  keepStoreFile(path.join(store, 'info', 'attributes'), ATTRIBUTES);
  keepStoreFile(path.join(store, 'info', 'exclude'), '');
}
