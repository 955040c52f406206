import { existsSync, realpathSync } from 'node:fs';

/** What the operator may let a run's network reach: each level includes the ones before it. */
export const NETWORK_LEVELS = ['none', 'hosts', 'full'] as const;
export type NetworkLevel = (typeof NETWORK_LEVELS)[number];

/** Defaults of the per-command resource limits; each can be overridden by the env variable named beside it. */
export const DEFAULT_MAX_PROCESSES = 512; // BAREAGENT_SANDBOX_MAX_PROCESSES
export const DEFAULT_MAX_MEMORY_MB = 4096; // BAREAGENT_SANDBOX_MAX_MEMORY_MB (address space, ulimit -v)
export const DEFAULT_MAX_FILE_MB = 1024; // BAREAGENT_SANDBOX_MAX_FILE_MB (largest file written, ulimit -f)

export interface SandboxLimits {
  maxProcesses: number;
  maxMemoryMb: number;
  maxFileMb: number;
}

/** The worker's sandbox settings, read from its environment. */
export interface SandboxSettings {
  /** BAREAGENT_SANDBOX=off runs commands unconfined, at the operator's risk. */
  enabled: boolean;
  /** BAREAGENT_BWRAP: the bubblewrap binary (default `bwrap`, found on PATH). */
  bwrap: string;
  /** BAREAGENT_SANDBOX_MAX_NETWORK: the most a run may ask for. */
  maxNetwork: NetworkLevel;
  /** BAREAGENT_SANDBOX_RELAY: what forwards an allow-list's traffic to the proxy (`auto`: socat when installed, else Node). */
  relay: 'auto' | 'socat' | 'node';
  /** BAREAGENT_SANDBOX_READ_PATHS / _WRITE_PATHS: existing paths only, resolved. */
  readPaths: string[];
  writePaths: string[];
  limits: SandboxLimits;
}

export class SandboxConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export function readSandboxSettings(env: NodeJS.ProcessEnv): SandboxSettings {
  const mode = (env.BAREAGENT_SANDBOX ?? 'on').trim().toLowerCase();
  if (!['on', 'off', 'bubblewrap', ''].includes(mode)) {
    throw new SandboxConfigError(`BAREAGENT_SANDBOX must be "on" or "off", got "${env.BAREAGENT_SANDBOX}"`);
  }
  const maxNetwork = (env.BAREAGENT_SANDBOX_MAX_NETWORK ?? 'hosts').trim().toLowerCase() || 'hosts';
  if (!(NETWORK_LEVELS as readonly string[]).includes(maxNetwork)) {
    throw new SandboxConfigError(`BAREAGENT_SANDBOX_MAX_NETWORK must be one of ${NETWORK_LEVELS.join(', ')}, got "${maxNetwork}"`);
  }
  const relay = (env.BAREAGENT_SANDBOX_RELAY ?? 'auto').trim().toLowerCase() || 'auto';
  if (!['auto', 'socat', 'node'].includes(relay)) {
    throw new SandboxConfigError(`BAREAGENT_SANDBOX_RELAY must be auto, socat or node, got "${env.BAREAGENT_SANDBOX_RELAY}"`);
  }
  return {
    enabled: mode !== 'off',
    relay: relay as SandboxSettings['relay'],
    bwrap: env.BAREAGENT_BWRAP?.trim() || 'bwrap',
    maxNetwork: maxNetwork as NetworkLevel,
    readPaths: existingPaths(env.BAREAGENT_SANDBOX_READ_PATHS),
    writePaths: existingPaths(env.BAREAGENT_SANDBOX_WRITE_PATHS),
    limits: {
      maxProcesses: positive(env, 'BAREAGENT_SANDBOX_MAX_PROCESSES', DEFAULT_MAX_PROCESSES),
      maxMemoryMb: positive(env, 'BAREAGENT_SANDBOX_MAX_MEMORY_MB', DEFAULT_MAX_MEMORY_MB),
      maxFileMb: positive(env, 'BAREAGENT_SANDBOX_MAX_FILE_MB', DEFAULT_MAX_FILE_MB),
    },
  };
}

let cached: SandboxSettings | undefined;

/** Read once per worker; `resetSandboxState` (tests) reads again. */
export function sandboxSettings(): SandboxSettings {
  cached ??= readSandboxSettings(process.env);
  return cached;
}

export function resetSandboxSettings(): void {
  cached = undefined;
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new SandboxConfigError(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

/** Colon-separated absolute paths; a configured path that does not exist on this machine is skipped. */
function existingPaths(list: string | undefined): string[] {
  const paths = (list ?? '').split(':').map((p) => p.trim()).filter((p) => p.startsWith('/'));
  return paths.filter((p) => existsSync(p)).map((p) => realpathSync(p));
}
