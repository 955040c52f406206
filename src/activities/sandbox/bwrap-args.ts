/**
 * The bubblewrap command line for one command, built from a description of the host (which
 * system directories exist, which are symlinks) so it can be unit tested without running
 * anything. Later mounts cover earlier ones, so the order below is the policy: system
 * read-only, private /proc /dev /tmp and home, the run's extra paths, the workspace, and the
 * secret masks (the operator's state among them) last so that no extra path can uncover them.
 */

/** A system directory as found on the host: bound read-only, or recreated as the same symlink (merged /usr). */
export interface SystemEntry {
  path: string;
  symlinkTo?: string;
}

export type SandboxNetworkPlan =
  | { kind: 'none' }
  | { kind: 'full' }
  /** allowHosts: the worker's proxy listens on `socketDir/proxy.sock`; socat forwards 127.0.0.1:port inside to it. */
  | { kind: 'proxy'; socketDir: string; port: number; socat: string };

export interface BwrapSpec {
  system: SystemEntry[];
  /** Files replaced by an empty /dev/null (shadow, gshadow...). */
  maskFiles: string[];
  /** Directories replaced by an empty tmpfs (ssh host keys, TLS private keys, sudoers.d). */
  maskDirs: string[];
  /**
   * The operator's state (BAREAGENT_HOME, the checkpoint stores), real paths: covered by an empty
   * tmpfs too wherever some bind would show them, whatever bound it.
   */
  operatorDirs?: string[];
  workspace: string;
  writableWorkspace: boolean;
  cwd: string;
  readOnlyPaths: string[];
  writablePaths: string[];
  network: SandboxNetworkPlan;
  env: Record<string, string>;
  command: string;
}

/** Inside the sandbox: where the proxy's socket directory is mounted, and the private home. */
export const PROXY_MOUNT = '/run/bareagent-proxy';
export const SANDBOX_HOME = '/tmp/home';

export function bwrapArgs(spec: BwrapSpec): string[] {
  const args = ['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--hostname', 'sandbox'];
  if (spec.network.kind === 'full') args.push('--share-net');
  for (const entry of spec.system) {
    if (entry.symlinkTo !== undefined) args.push('--symlink', entry.symlinkTo, entry.path);
    else args.push('--ro-bind', entry.path, entry.path);
  }
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--dir', SANDBOX_HOME);
  for (const p of spec.readOnlyPaths) args.push('--ro-bind', p, p);
  for (const p of spec.writablePaths) args.push('--bind', p, p);
  args.push(spec.writableWorkspace ? '--bind' : '--ro-bind', spec.workspace, spec.workspace);
  if (spec.network.kind === 'proxy') args.push('--ro-bind', spec.network.socketDir, PROXY_MOUNT);
  // --dev-bind: bwrap mounts plain binds nodev, where /dev/null could not be opened; reads are empty, writes vanish.
  for (const file of spec.maskFiles) args.push('--dev-bind', '/dev/null', file);
  for (const dir of [...spec.maskDirs, ...visibleOperatorDirs(spec)]) args.push('--tmpfs', dir, '--remount-ro', dir);
  args.push('--clearenv');
  for (const [name, value] of Object.entries(sandboxEnv(spec))) args.push('--setenv', name, value);
  args.push('--chdir', spec.cwd, '--', ...innerCommand(spec.command, spec.network));
  return args;
}

/** The operator's directories a bind would show: inside a bound path, or holding one. */
function visibleOperatorDirs(spec: BwrapSpec): string[] {
  const bound = [
    ...spec.system.filter((entry) => entry.symlinkTo === undefined).map((entry) => entry.path),
    ...spec.readOnlyPaths,
    ...spec.writablePaths,
    spec.workspace,
    ...(spec.network.kind === 'proxy' ? [spec.network.socketDir] : []),
  ];
  return (spec.operatorDirs ?? []).filter((dir) => bound.some((source) => within(source, dir) || within(dir, source)));
}

function within(parent: string, child: string): boolean {
  return child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);
}

/** The environment inside: the spec's small environment, plus the proxy variables when the network is filtered. */
export function sandboxEnv(spec: Pick<BwrapSpec, 'env' | 'network'>): Record<string, string> {
  if (spec.network.kind !== 'proxy') return { ...spec.env };
  const url = `http://127.0.0.1:${spec.network.port}`;
  const proxy: Record<string, string> = {};
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy']) proxy[name] = url;
  return { ...spec.env, ...proxy };
}

/**
 * The argv bwrap executes. With a filtering proxy, socat is started first and the command runs
 * only once it listens, so its first connection cannot race the forwarder.
 */
export function innerCommand(command: string, network: SandboxNetworkPlan): string[] {
  if (network.kind !== 'proxy') return ['bash', '-c', command];
  const port = network.port;
  const prelude = [
    `${network.socat} TCP-LISTEN:${port},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${PROXY_MOUNT}/proxy.sock 2>/dev/null &`,
    `for _ in $(seq 200); do (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && break; sleep 0.01; done`,
    'exec bash -c "$1"',
  ].join('\n');
  return ['bash', '-c', prelude, 'bareagent-sandbox', command];
}
