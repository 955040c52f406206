import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import { bareagentHome } from '../connection/home';
import { git } from './git';
import { writeStoreFile } from './store-files';
import { guardStore } from './store-guard';

/**
 * Workspace attributes the store overrides: `info/attributes` outranks every `.gitattributes` of
 * the workspace, so a hostile one cannot name a filter, textconv or diff driver, an eol or an
 * encoding conversion: bytes are stored and restored as they are.
 */
const ATTRIBUTES = '* -filter !diff -merge -text !eol -ident -working-tree-encoding -export-subst\n';

/** The store's own config, written every time: nothing planted in it (an include, a command) is read. */
const CONFIG = '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n\tlogAllRefUpdates = false\n';

/** One shadow repository per canonical workspace path, under BAREAGENT_HOME, never in the workspace. */
export function storeFor(workspace: string, env = process.env): string {
  const digest = createHash('sha256').update(workspace).digest('hex').slice(0, 16);
  const name = path.basename(workspace).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40) || 'root';
  return path.join(bareagentHome(env), 'checkpoints', `${name}-${digest}.git`);
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
 * whatever is at that name (store-files.ts): a symlink there is replaced, never written through.
 */
export async function ensureStore(store: string): Promise<void> {
  if (!existsSync(path.join(store, 'HEAD'))) {
    mkdirSync(path.dirname(store), { recursive: true });
    const temporary = `${store}.init-${process.pid}-${Date.now()}`;
    await git(['init', '--quiet', '--bare', temporary], { store: temporary });
    try {
      renameSync(temporary, store);
    } catch (err) {
      // Another worker made it first: theirs is as good as ours.
      if (!existsSync(path.join(store, 'HEAD'))) throw err;
    }
  }
  guardStore(store);
  writeStoreFile(path.join(store, 'config'), CONFIG);
  writeStoreFile(path.join(store, 'HEAD'), 'ref: refs/heads/master\n');
  writeStoreFile(path.join(store, 'info', 'attributes'), ATTRIBUTES);
  writeStoreFile(path.join(store, 'info', 'exclude'), '');
}
