import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { bareagentHome } from '../connection/home';
import { ensurePrivateDir, writePrivateFile } from '../connection/private-files';
import { bundleOptions } from './workflow-bundle';

/**
 * The workflow code bundled once per source version under BAREAGENT_HOME/cache: bundling takes
 * seconds, loading a bundle well under one. The key hashes every source file the bundle can reach
 * (src/ in a clone, dist/ in the installed package), the versions of the libraries it bundles, and
 * the lock file when there is one. Every in-process worker (demo, run, eval) and every versioned
 * worker uses it.
 */
export async function cachedWorkflowBundle(): Promise<string> {
  if (process.env.BAREAGENT_WORKFLOW_BUNDLE) return process.env.BAREAGENT_WORKFLOW_BUNDLE;
  const options = bundleOptions();
  const srcRoot = path.resolve(path.dirname(options.workflowsPath), '..');
  const hash = createHash('sha256');
  for (const file of sourceFiles(srcRoot)) hash.update(file).update(readFileSync(file));
  // The libraries the workflow code bundles: installed from npm, the user's project decides their
  // versions (peer dependencies), and there is no lock file of ours.
  for (const lib of BUNDLED_LIBRARIES) hash.update(readFileSync(require.resolve(`${lib}/package.json`)));
  // In a clone, every other library the workflow code bundles changes with the lock file.
  const lock = path.resolve(srcRoot, '..', 'package-lock.json');
  if (existsSync(lock)) hash.update(readFileSync(lock));
  const dir = path.join(bareagentHome(), 'cache');
  const codePath = path.join(dir, `workflow-bundle-${hash.digest('hex').slice(0, 16)}.js`);
  if (existsSync(codePath)) return codePath;
  // The bundler (webpack, in the worker SDK) loads only when the cache misses.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { bundleWorkflowCode } = require('@temporalio/worker') as typeof import('@temporalio/worker');
  const { code } = await bundleWorkflowCode({ ...options, logger: silent });
  ensurePrivateDir(dir);
  const partial = `${codePath}.${process.pid}.tmp`;
  writePrivateFile(partial, code);
  renameSync(partial, codePath);
  return codePath;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) return sourceFiles(full);
      return /\.(ts|js|json)$/.test(name) ? [full] : [];
    });
}

const BUNDLED_LIBRARIES = ['@temporalio/workflow', '@temporalio/common', 'zod'];

const silent = { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
