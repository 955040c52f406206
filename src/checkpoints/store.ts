import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bareagentHome } from '../connection/home';
import { git } from './git';

/**
 * Workspace attributes the store overrides: `info/attributes` outranks every `.gitattributes` of
 * the workspace, so a hostile one cannot name a filter, textconv or diff driver, an eol or an
 * encoding conversion: bytes are stored and restored as they are.
 */
const ATTRIBUTES = '* -filter !diff -merge -text !eol -ident -working-tree-encoding -export-subst\n';

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
 * leaves no half-made store under the real name) and writes its attributes every time.
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
  mkdirSync(path.join(store, 'info'), { recursive: true });
  writeFileSync(path.join(store, 'info', 'attributes'), ATTRIBUTES);
}
