import { isHostAllowed, parseAllowHosts } from '../../src/sandbox/allow-hosts';
import { bwrapArgs, PROXY_MOUNT, sandboxEnv, type BwrapSpec } from '../../src/sandbox/bwrap-args';
import { launcherArgs } from '../../src/sandbox/launcher';
import { networkCapError } from '../../src/sandbox/network-cap';
import { readSandboxSettings } from '../../src/sandbox/sandbox-config';

const base: BwrapSpec = {
  system: [{ path: '/usr' }, { path: '/bin', symlinkTo: 'usr/bin' }, { path: '/etc' }],
  maskFiles: ['/etc/shadow'],
  maskDirs: ['/etc/ssh'],
  workspace: '/srv/ws',
  writableWorkspace: true,
  cwd: '/srv/ws',
  readOnlyPaths: [],
  writablePaths: [],
  network: { kind: 'none' },
  env: { PATH: '/usr/bin:/bin', HOME: '/tmp/home' },
  command: 'echo hi',
};

/** The index of the first `flag a b` triple in argv, or -1. */
function triple(args: string[], flag: string, a: string, b: string): number {
  return args.findIndex((x, i) => x === flag && args[i + 1] === a && args[i + 2] === b);
}

describe('bwrapArgs', () => {
  test('the namespaces and the fixed mounts', () => {
    const args = bwrapArgs(base);
    for (const flag of ['--unshare-all', '--die-with-parent', '--new-session', '--clearenv']) expect(args).toContain(flag);
    expect(args.join(' ')).toContain('--cap-drop ALL');
    expect(args).not.toContain('--share-net');
    expect(triple(args, '--ro-bind', '/usr', '/usr')).toBeGreaterThanOrEqual(0);
    expect(triple(args, '--symlink', 'usr/bin', '/bin')).toBeGreaterThanOrEqual(0);
    expect(args.join(' ')).toContain('--proc /proc --dev /dev --tmpfs /tmp');
    expect(args.slice(-4)).toEqual(['--', 'bash', '-c', 'echo hi']);
  });

  test('the workspace is bound read-write or read-only', () => {
    expect(triple(bwrapArgs(base), '--bind', '/srv/ws', '/srv/ws')).toBeGreaterThanOrEqual(0);
    const ro = bwrapArgs({ ...base, writableWorkspace: false });
    expect(triple(ro, '--ro-bind', '/srv/ws', '/srv/ws')).toBeGreaterThanOrEqual(0);
    expect(triple(ro, '--bind', '/srv/ws', '/srv/ws')).toBe(-1);
  });

  test('secrets are masked after every other mount, so no extra path uncovers them', () => {
    const args = bwrapArgs({ ...base, readOnlyPaths: ['/etc'], writablePaths: ['/var/cache/x'] });
    const mask = triple(args, '--dev-bind', '/dev/null', '/etc/shadow');
    expect(mask).toBeGreaterThan(triple(args, '--ro-bind', '/etc', '/etc'));
    expect(mask).toBeGreaterThan(args.lastIndexOf('--ro-bind'));
    expect(triple(args, '--tmpfs', '/etc/ssh', '--remount-ro')).toBeGreaterThan(mask);
    expect(triple(args, '--bind', '/var/cache/x', '/var/cache/x')).toBeGreaterThanOrEqual(0);
  });

  test("the operator's home is covered after every bind that would show it, whatever bound it", () => {
    const args = bwrapArgs({ ...base, readOnlyPaths: ['/home/op'], writablePaths: ['/srv/state/bareagent/cache'], operatorDirs: ['/home/op/.local/state/bareagent', '/srv/state/bareagent', '/var/lib/hidden'] });
    const underRead = triple(args, '--tmpfs', '/home/op/.local/state/bareagent', '--remount-ro');
    expect(underRead).toBeGreaterThan(triple(args, '--ro-bind', '/home/op', '/home/op'));
    // A bind inside the home is hidden by the tmpfs mounted over it afterwards.
    expect(triple(args, '--tmpfs', '/srv/state/bareagent', '--remount-ro')).toBeGreaterThan(triple(args, '--bind', '/srv/state/bareagent/cache', '/srv/state/bareagent/cache'));
    expect(underRead).toBeGreaterThan(args.lastIndexOf('--bind'));
    // Nothing binds /var/lib: no mount point is made for it.
    expect(args).not.toContain('/var/lib/hidden');
    expect(bwrapArgs({ ...base, operatorDirs: ['/home/op/.local/state/bareagent'] })).not.toContain('/home/op/.local/state/bareagent');
  });

  test('network: none unshares, full shares, hosts goes through the proxy socket', () => {
    expect(bwrapArgs({ ...base, network: { kind: 'full' } })).toContain('--share-net');
    const proxied = bwrapArgs({ ...base, network: { kind: 'proxy', socketDir: '/tmp/p', port: 3128, relay: { kind: 'socat', binary: '/usr/bin/socat' } } });
    expect(proxied).not.toContain('--share-net');
    expect(triple(proxied, '--ro-bind', '/tmp/p', PROXY_MOUNT)).toBeGreaterThanOrEqual(0);
    expect(triple(proxied, '--setenv', 'HTTPS_PROXY', 'http://127.0.0.1:3128')).toBeGreaterThanOrEqual(0);
    const inner = proxied.slice(proxied.indexOf('--') + 1);
    expect(inner[2]).toContain('/usr/bin/socat TCP-LISTEN:3128,bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:/run/bareagent-proxy/proxy.sock');
    expect(inner.at(-1)).toBe('echo hi');
    expect(Object.keys(sandboxEnv({ env: base.env, network: { kind: 'none' } }))).toEqual(['PATH', 'HOME']);
  });

  test('only the spec environment is set', () => {
    const args = bwrapArgs(base);
    const names = args.flatMap((x, i) => (x === '--setenv' ? [args[i + 1]] : []));
    expect(names).toEqual(['PATH', 'HOME']);
    expect(args.indexOf('--clearenv')).toBeLessThan(args.indexOf('--setenv'));
  });
});

describe('allow-hosts', () => {
  const rules = parseAllowHosts(['registry.npmjs.org', '*.example.com', '127.0.0.1:8080']);
  test.each([
    ['registry.npmjs.org', 443, true],
    ['REGISTRY.npmjs.org.', 80, true],
    ['registry.npmjs.org', 22, false],
    ['a.example.com', 443, true],
    ['example.com', 443, false],
    ['evilexample.com', 443, false],
    ['127.0.0.1', 8080, true],
    ['127.0.0.1', 7233, false],
    ['localhost', 8080, false],
  ])('%s:%d allowed: %s', (host, port, allowed) => {
    expect(isHostAllowed(rules, host, port)).toBe(allowed);
  });
});

describe('operator settings', () => {
  test('network cap names the variable', () => {
    expect(networkCapError('none', 'none')).toBeUndefined();
    expect(networkCapError({ allowHosts: ['a.com'] }, 'hosts')).toBeUndefined();
    expect(networkCapError('full', 'hosts')).toMatch(/BAREAGENT_SANDBOX_MAX_NETWORK=hosts/);
    expect(networkCapError({ allowHosts: ['a.com'] }, 'none')).toMatch(/BAREAGENT_SANDBOX_MAX_NETWORK=none/);
  });

  test('limits, paths and switches come from the environment', () => {
    const settings = readSandboxSettings({
      BAREAGENT_SANDBOX_MAX_PROCESSES: '64',
      BAREAGENT_SANDBOX_READ_PATHS: '/usr/share:/does/not/exist',
      BAREAGENT_SANDBOX: 'off',
    });
    expect(settings.enabled).toBe(false);
    expect(settings.limits).toEqual({ maxProcesses: 64, maxMemoryMb: 4096, maxFileMb: 1024 });
    expect(settings.readPaths).toEqual(['/usr/share']);
    expect(settings.maxNetwork).toBe('hosts');
    expect(() => readSandboxSettings({ BAREAGENT_SANDBOX_MAX_NETWORK: 'all' })).toThrow(/BAREAGENT_SANDBOX_MAX_NETWORK/);
    expect(() => readSandboxSettings({ BAREAGENT_SANDBOX_MAX_MEMORY_MB: '-1' })).toThrow(/BAREAGENT_SANDBOX_MAX_MEMORY_MB/);
  });

  test('the launcher passes limits in KiB and the cgroup file first', () => {
    const args = launcherArgs({ maxProcesses: 10, maxMemoryMb: 2, maxFileMb: 3 }, '/cg/cgroup.procs', ['bwrap', 'x']);
    expect(args.slice(2)).toEqual(['bareagent-sandbox', '/cg/cgroup.procs', '2048', '3072', '10', '', 'bwrap', 'x']);
  });
});
