/**
 * The command sandbox, checked by its effects with the real bwrap: what a command can see,
 * write, reach and leave behind. Every test would fail if the sandbox stopped confining.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { resetSandboxState } from '../../src/sandbox/describe-sandbox';
import { runShell, type ShellOptions, type ShellResult } from '../../src/sandbox/shell';
import type { SandboxRequest } from '../../src/common/sandbox';
import { readTestEnv } from '../support/test-env';

const SECRET = `sk-test-${process.pid}-sandbox-canary`;
let scratch: string;
let workspace: string;
let outside: string;
const savedEnv = { ...process.env };

beforeAll(() => {
  scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'bareagent-sandbox-test-')));
  workspace = path.join(scratch, 'ws');
  outside = path.join(scratch, 'outside');
  mkdirSync(workspace);
  mkdirSync(outside);
  process.env.OPENAI_API_KEY = SECRET;
  process.env.BAREAGENT_SANDBOX_MAX_NETWORK = 'full';
  resetSandboxState();
});

afterEach(() => {
  for (const name of ['BAREAGENT_SANDBOX', 'BAREAGENT_BWRAP', 'BAREAGENT_SANDBOX_READ_PATHS']) {
    if (savedEnv[name] === undefined) delete process.env[name];
    else process.env[name] = savedEnv[name];
  }
  process.env.BAREAGENT_SANDBOX_MAX_NETWORK = 'full';
  resetSandboxState();
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  process.env = savedEnv;
  resetSandboxState();
});

function run(command: string, sandbox: Partial<SandboxRequest> = {}, options: Partial<ShellOptions> = {}): Promise<ShellResult> {
  return runShell(command, {
    workspace,
    sandbox: { network: 'none', readOnlyPaths: [], writableWorkspace: true, ...sandbox },
    timeoutMs: 20_000,
    maxChars: 200_000,
    ...options,
  });
}

describe('the filesystem', () => {
  test('a file outside the workspace survives writes, rm, cp, ln and mv aimed at it', async () => {
    const victim = path.join(outside, 'victim.txt');
    writeFileSync(victim, 'original');
    const attempts = [
      `echo x > ${victim}`,
      `rm -rf ${outside}`,
      `cp /etc/hostname ${victim}`,
      `ln -sf /etc/passwd ${victim}`,
      `mv ${victim} ${outside}/moved`,
      `touch ${outside}/new-file`,
      `ln -s ${victim} link && echo x > link`,
    ];
    for (const attempt of attempts) {
      const result = await run(attempt);
      expect(result.sandbox).toBe('bubblewrap');
    }
    expect(readFileSync(victim, 'utf8')).toBe('original');
    expect(readdirSync(outside)).toEqual(['victim.txt']);
  });

  test('the workspace is writable, and read-only when asked', async () => {
    const ok = await run('echo hello > made.txt && cat made.txt');
    expect(ok.exitCode).toBe(0);
    expect(readFileSync(path.join(workspace, 'made.txt'), 'utf8')).toBe('hello\n');
    const refused = await run('echo changed > made.txt; touch other.txt', { writableWorkspace: false });
    expect(refused.exitCode).not.toBe(0);
    expect(refused.output).toMatch(/Read-only file system/);
    expect(readFileSync(path.join(workspace, 'made.txt'), 'utf8')).toBe('hello\n');
    expect(existsSync(path.join(workspace, 'other.txt'))).toBe(false);
  });

  test('/etc/shadow reads as empty, and the worker\'s directories do not exist', async () => {
    const secretDir = path.join(outside, 'private');
    mkdirSync(secretDir, { recursive: true });
    writeFileSync(path.join(secretDir, 'secret.txt'), 'worker-only');
    // One stream (2>&1): ls's errors come through stderr, whose pipe the worker may read after stdout's last line.
    const result = await run(
      `{ wc -c < /etc/shadow; cat /etc/shadow /etc/gshadow; ls ${secretDir} /root /work /home /opt /var /srv /mnt ${os.homedir()}; echo HOME=$HOME; ls -A $HOME | wc -l; } 2>&1`,
    );
    expect(result.output.split('\n')[0]).toBe('0');
    expect(result.output).not.toMatch(/root:[^:\n]*\$/); // a hash field
    expect(result.output).not.toMatch(/secret\.txt/);
    for (const dir of [secretDir, '/root', '/work', '/home', '/opt', '/var', '/srv', '/mnt']) {
      expect(result.output).toContain(`cannot access '${dir}': No such file or directory`);
    }
    expect(result.output).toContain('HOME=/tmp/home');
    expect(result.output.trim().endsWith('0')).toBe(true);
  });

  test('readOnlyPaths are visible read-only; BAREAGENT_SANDBOX_READ_PATHS too; a missing one is skipped', async () => {
    const shared = path.join(outside, 'shared');
    mkdirSync(shared, { recursive: true });
    writeFileSync(path.join(shared, 'data.txt'), 'shared data');
    const configured = mkdtempSync(path.join(scratch, 'configured-'));
    writeFileSync(path.join(configured, 'conf.txt'), 'operator data');
    process.env.BAREAGENT_SANDBOX_READ_PATHS = `${configured}:/nonexistent/path`;
    resetSandboxState();
    const result = await run(`cat ${shared}/data.txt ${configured}/conf.txt; echo x > ${shared}/data.txt`, { readOnlyPaths: [shared, '/also/missing'] });
    expect(result.output).toContain('shared data');
    expect(result.output).toContain('operator data');
    expect(result.output).toMatch(/Read-only file system/);
    expect(readFileSync(path.join(shared, 'data.txt'), 'utf8')).toBe('shared data');
  });

  test('toolchains under /usr work inside', async () => {
    const result = await run('node -e "console.log(40 + 2)" && git --version && python3 -c "print(6 * 7)"');
    expect(result.exitCode).toBe(0);
    expect(result.output).toMatch(/^42\ngit version .*\n42\n$/);
  });
});

describe('the environment and processes', () => {
  test('no secret of the worker in env or any /proc/*/environ', async () => {
    const result = await run('env; cat /proc/1/environ /proc/$PPID/environ /proc/*/environ 2>/dev/null | tr "\\0" "\\n"; ps -e 2>/dev/null || ls /proc');
    expect(result.exitCode).toBe(0);
    expect(result.output).toContain('PATH=');
    expect(result.output).not.toContain(SECRET);
    expect(result.output).not.toMatch(/OPENAI_API_KEY|TEMPORAL_|BAREAGENT_/);
    // The worker's own process is not in sight: its pid namespace is the sandbox's alone.
    expect(result.output).not.toContain(String(process.pid) + '\n');
  });

  test('a background process does not outlive the command', async () => {
    const marker = `sleep-marker-${process.pid}`;
    const result = await run(`cp /usr/bin/sleep ./${marker} && (./${marker} 100 &) && echo started`);
    expect(result.output).toContain('started');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(execFileSync('ps', ['-eo', 'args']).toString()).not.toContain(marker);
  });

  test('a timeout kills the command and all it started', async () => {
    const marker = `timeout-marker-${process.pid}`;
    const started = Date.now();
    const result = await run(`cp /usr/bin/sleep ./${marker}; ./${marker} 100 & ./${marker} 100`, {}, { timeoutMs: 1000 });
    expect(result.timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(execFileSync('ps', ['-eo', 'args']).toString()).not.toContain(marker);
  });

  test('a fork bomb is contained, killed at its timeout, and the worker can still spawn', async () => {
    const processes = () => Number(execFileSync('sh', ['-c', 'ps -e --no-headers | wc -l']).toString());
    const before = processes();
    const started = Date.now();
    const bomb = run('bomb() { bomb | bomb & }; bomb; sleep 60', {}, { timeoutMs: 4000, maxChars: 4000 });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    // While the bomb runs, the worker (this jest process) still forks and execs.
    expect(execFileSync('echo', ['worker-still-spawns']).toString()).toBe('worker-still-spawns\n');
    // Bounded by the pids cgroup (512 by default) even though this worker runs as root.
    expect(processes() - before).toBeLessThanOrEqual(700); // slack for other test files spawning meanwhile
    const result = await bomb;
    expect(result.timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(execFileSync('echo', ['after']).toString()).toBe('after\n');
  });
});

describe('the network', () => {
  let server: net.Server;
  let port: number;
  let web: http.Server;
  let webPort: number;

  beforeAll(async () => {
    server = net.createServer((socket) => {
      socket.on('error', () => {}); // probes hang up without reading
      socket.end('loopback-secret\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
    web = http.createServer((_req, res) => res.end('allowed-body\n'));
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    webPort = (web.address() as net.AddressInfo).port;
  });

  afterAll(() => {
    server.close();
    web.close();
  });

  const probe = (p: number) => `if (exec 3<>/dev/tcp/127.0.0.1/${p}) 2>/dev/null; then echo tcp-open; else echo tcp-closed; fi; curl -s -m 3 http://127.0.0.1:${p}/ || echo curl-failed`;

  test('none: the host\'s loopback (a test server, the Temporal frontend) is unreachable', async () => {
    const frontend = Number(readTestEnv().address.split(':').pop());
    const result = await run(`${probe(port)}; ${probe(frontend)}; ip -o link 2>/dev/null || cat /proc/net/dev`);
    expect(result.output).not.toContain('tcp-open');
    expect(result.output).not.toContain('loopback-secret');
    expect(result.output.match(/tcp-closed/g)).toHaveLength(2);
    expect(result.output).not.toMatch(/eth0|ens\d/);
  });

  test('full: the same server answers', async () => {
    const result = await run(probe(port), { network: 'full' });
    expect(result.output).toContain('tcp-open');
  });

  test('allowHosts: the listed host passes the proxy, another is refused with 403', async () => {
    // The test servers are on loopback, which the worker's egress policy refuses unless the operator allows it (test/security/egress.test.ts).
    process.env.BAREAGENT_WORKER_EGRESS_ALLOW = '127.0.0.1';
    const result = await run(
      `curl -s -m 5 http://127.0.0.1:${webPort}/; curl -s -m 5 -p -w 'allowed-tunnel=%{http_connect}\\n' http://127.0.0.1:${webPort}/; curl -s -m 5 -o /dev/null -w 'other=%{http_code}\\n' http://127.0.0.1:${port}/; ` +
        `curl -s -m 5 -p -o /dev/null -w 'tunnel=%{http_connect}\\n' http://127.0.0.1:${port}/; ${probe(port)}`,
      { network: { allowHosts: [`127.0.0.1:${webPort}`] } },
    );
    expect(result.output.match(/allowed-body/g)).toHaveLength(2);
    expect(result.output).toContain('allowed-tunnel=200');
    expect(result.output).toContain('other=403');
    expect(result.output).toContain('tunnel=403');
    expect(result.output).not.toContain('loopback-secret');
    expect(result.output).toContain('tcp-closed');
    delete process.env.BAREAGENT_WORKER_EGRESS_ALLOW;
  });

  test('a run asking for more network than the operator allows fails, naming the variable', async () => {
    process.env.BAREAGENT_SANDBOX_MAX_NETWORK = 'none';
    resetSandboxState();
    await expect(run('echo hi', { network: 'full' })).rejects.toThrow(/BAREAGENT_SANDBOX_MAX_NETWORK=none/);
    await expect(run('echo hi', { network: { allowHosts: ['example.com'] } })).rejects.toThrow(/BAREAGENT_SANDBOX_MAX_NETWORK/);
  });
});

describe('off and fail closed', () => {
  test('BAREAGENT_SANDBOX=off runs plain bash, reported as off', async () => {
    process.env.BAREAGENT_SANDBOX = 'off';
    resetSandboxState();
    const result = await run(`ls -d ${outside} && echo $OPENAI_API_KEY-absent`);
    expect(result.sandbox).toBe('off');
    expect(result.exitCode).toBe(0);
    expect(result.output).toContain(outside); // unconfined: the host's files are there
    expect(result.output).toContain('-absent');
    expect(result.output).not.toContain(SECRET); // still only commandEnv()
  });

  test('a bwrap that cannot start fails every command with the reason and the fixes, and runs nothing', async () => {
    process.env.BAREAGENT_BWRAP = '/nonexistent/bwrap';
    resetSandboxState();
    const marker = path.join(workspace, 'must-not-exist');
    const failure = run(`touch ${marker}`);
    await expect(failure).rejects.toThrow(/\/nonexistent\/bwrap/);
    await expect(run(`touch ${marker}`)).rejects.toThrow(/apt-get install bubblewrap.*BAREAGENT_SANDBOX=off/s);
    expect(existsSync(marker)).toBe(false);
  });
});
