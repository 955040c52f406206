import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { checkpointsHome } from '../connection/home';
import { ensurePrivateDir, PRIVATE_DIR_MODE } from '../connection/private-files';
import { keepStoreFile } from './store-files';
import { guardStore } from './store-guard';

/**
 * Workspace attributes the store overrides: `info/attributes` outranks every `.gitattributes` of
 * the workspace, so a hostile one cannot name a filter, textconv or diff driver, an eol or an
 * encoding conversion: bytes are stored and restored as they are.
 */
const ATTRIBUTES = '* -filter !diff -merge -text !eol -ident -working-tree-encoding -export-subst\n';

const HEAD = 'ref: refs/heads/master\n';

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

/** What a bare repository needs for git to read it: the rest (`info/`, the config's content) is written every time. */
const LAYOUT = ['objects', 'objects/info', 'objects/pack', 'refs', 'refs/heads', 'refs/tags', 'info'];

/**
 * Creates the store once, in this process (a `git init` child cost a fork of the whole worker, the
 * biggest part of a new workspace's first checkpoint at 50 runs at once): made under a temporary
 * name, then renamed, so a worker killed meanwhile leaves no half-made store under the real name.
 * Checks it has nothing planted where git writes (store-guard.ts), and writes its config, attributes and excludes every time, each replacing
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
    mkdirSync(temporary, { mode: PRIVATE_DIR_MODE });
    for (const dir of LAYOUT) mkdirSync(path.join(temporary, dir), { mode: PRIVATE_DIR_MODE });
    writeFileSync(path.join(temporary, 'config'), CONFIG, { flag: 'wx', mode: 0o600 });
    writeFileSync(path.join(temporary, 'HEAD'), HEAD, { flag: 'wx', mode: 0o600 });
    try {
      renameSync(temporary, store);
    } catch (err) {
      rmSync(temporary, { recursive: true, force: true });
      // Another worker made it first: theirs is as good as ours.
      if (!existsSync(path.join(store, 'HEAD'))) throw err;
    }
  }
  guardStore(store);
  keepStoreFile(path.join(store, 'config'), CONFIG);
  keepStoreFile(path.join(store, 'HEAD'), HEAD);
  keepStoreFile(path.join(store, 'info', 'attributes'), ATTRIBUTES);
  keepStoreFile(path.join(store, 'info', 'exclude'), '');
}
