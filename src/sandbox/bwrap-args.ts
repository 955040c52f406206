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
  /** allowHosts: the worker's proxy listens on `socketDir/proxy.sock`; a relay forwards 127.0.0.1:port inside to it. */
  | { kind: 'proxy'; socketDir: string; port: number; relay: ProxyRelay };

/**
 * What forwards the sandbox's 127.0.0.1:port to the proxy's unix socket: socat when the system has
 * it (starts in a millisecond), else the worker's own Node running a relay of a few lines, so a
 * machine with no system package still gets a network allow-list.
 */
export type ProxyRelay = { kind: 'socat'; binary: string } | { kind: 'node'; binary: string };

/** The Node relay: every connection to the port piped both ways to the socket (double quotes only: it is single-quoted for bash). */
const NODE_RELAY = [
  'const net = require("net");',
  'const [port, socket] = process.argv.slice(1);',
  'net.createServer((inside) => {',
  '  const proxy = net.connect(socket);',
  '  inside.pipe(proxy).pipe(inside);',
  '  inside.on("error", () => proxy.destroy());',
  '  proxy.on("error", () => inside.destroy());',
  '}).listen(Number(port), "127.0.0.1");',
].join(' ');

function relayCommand(relay: ProxyRelay, port: number, socket: string): string {
  if (relay.kind === 'socat') return `${relay.binary} TCP-LISTEN:${port},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${socket}`;
  return `${relay.binary} -e '${NODE_RELAY}' ${port} ${socket}`;
}

/** A private file bound read-only over a path in the workspace (`target`, absolute). */
export interface PinnedCopy {
  source: string;
  target: string;
}

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
  pinnedCopies?: PinnedCopy[];
  /** Paths inside the workspace bound read-only over it: what host tools run (host-executed-binds.ts). */
  protectedPaths?: string[];
  /** The fd bwrap reads its seccomp program from (seccomp-no-setid.ts; the launcher opens it). */
  seccompFd?: number;
}

/** Inside the sandbox: where the proxy's socket directory is mounted, and the private home. */
export const PROXY_MOUNT = '/run/bareagent-proxy';
export const SANDBOX_HOME = '/tmp/home';

export function bwrapArgs(spec: BwrapSpec): string[] {
  const args = ['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--hostname', 'sandbox'];
  if (spec.network.kind === 'full') args.push('--share-net');
  if (spec.seccompFd !== undefined) args.push('--seccomp', String(spec.seccompFd));
  for (const entry of spec.system) {
    if (entry.symlinkTo !== undefined) args.push('--symlink', entry.symlinkTo, entry.path);
    else args.push('--ro-bind', entry.path, entry.path);
  }
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--dir', SANDBOX_HOME);
  for (const p of spec.readOnlyPaths) args.push('--ro-bind', p, p);
  for (const p of spec.writablePaths) args.push('--bind', p, p);
  args.push(spec.writableWorkspace ? '--bind' : '--ro-bind', spec.workspace, spec.workspace);
  for (const p of spec.protectedPaths ?? []) {
    if (within(spec.workspace, p) && p !== spec.workspace) args.push('--ro-bind', p, p);
  }
  for (const copy of spec.pinnedCopies ?? []) {
    if (within(spec.workspace, copy.target) && copy.target !== spec.workspace) args.push('--ro-bind', copy.source, copy.target);
  }
  if (spec.network.kind === 'proxy') args.push('--ro-bind', spec.network.socketDir, PROXY_MOUNT);
  // The worker's Node may live outside the system folders (nvm, a tarball): the relay needs it.
  if (spec.network.kind === 'proxy' && spec.network.relay.kind === 'node') args.push('--ro-bind', spec.network.relay.binary, spec.network.relay.binary);
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
 * The argv bwrap executes. With a filtering proxy, the relay is started first and the command runs
 * only once it listens, so its first connection cannot race the forwarder.
 */
export function innerCommand(command: string, network: SandboxNetworkPlan): string[] {
  if (network.kind !== 'proxy') return ['bash', '-c', command];
  const port = network.port;
  const prelude = [
    `${relayCommand(network.relay, port, `${PROXY_MOUNT}/proxy.sock`)} 2>/dev/null &`,
    `for _ in $(seq 500); do (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && break; sleep 0.01; done`,
    'exec bash -c "$1"',
  ].join('\n');
  return ['bash', '-c', prelude, 'bareagent-sandbox', command];
}
