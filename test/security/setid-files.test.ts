/**
 * No setuid or setgid file leaves the sandbox, by effect: commands try every usual way of making
 * one (chmod, install -m, open with O_CREAT, mkdir -m), then this test stats, on the host, every
 * file they left. Through real runs in default mode with `bash` allowed and in bypass (the sandbox
 * is the same in every mode), and through the sandbox's own runner for each network plan. The
 * worker here runs as root, so without the filter the first command leaves a setuid-root shell.
 */
import { lstatSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { PermissionMode } from '../../src/common/input';
import type { SandboxRequest } from '../../src/common/sandbox';
import { resetSandboxState } from '../../src/sandbox/describe-sandbox';
import { runShell } from '../../src/sandbox/shell';
import { noSetidFilter } from '../../src/sandbox/seccomp-no-setid';
import { Harness } from '../support/harness';

const ATTEMPTS = [
  'cp /bin/bash rootsh && chmod 4755 rootsh',
  'chmod g+s rootsh',
  'chmod u+s,g+s rootsh',
  'install -m 4755 /bin/true t2',
  `python3 -c "import os; os.close(os.open('t3', os.O_CREAT|os.O_WRONLY, 0o4755))"`,
  `python3 -c "import os; fd = os.open('t4', os.O_CREAT|os.O_WRONLY, 0o755); os.fchmod(fd, 0o6755)"`,
  `python3 -c "import os; os.mknod('t5', 0o100000|0o4755)"`,
  'mkdir -m 2755 d',
  'mkdir tree && cp /bin/true tree/x && tar -cf - tree | (mkdir out && cd out && tar --same-permissions -xf -); chmod 4755 out/tree/x',
].join('; ');
/** Ordinary modes still apply. */
const ORDINARY = 'cp /bin/true plain && chmod 700 plain && chmod +x plain && chmod 755 plain && touch data && chmod 640 data && echo ordinary-ok';

const SETID = 0o6000;

function setidFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      const stat = lstatSync(file);
      if (stat.mode & SETID) found.push(`${path.relative(root, file)} ${(stat.mode & 0o7777).toString(8)}`);
      if (stat.isDirectory()) walk(file);
    }
  };
  walk(root);
  return found;
}

function freshWorkspace(): string {
  return realpathSync(mkdtempSync(path.join(os.tmpdir(), 'bareagent-setid-')));
}

test('the program is whole instructions, checks the architecture first, and exists for x64 and arm64 only', () => {
  for (const arch of ['x64', 'arm64'] as const) {
    const filter = noSetidFilter(arch)!;
    expect(filter.length % 8).toBe(0);
    // ld [4] (the architecture), then jeq against this one's audit value.
    expect(filter.readUInt16LE(0)).toBe(0x20);
    expect(filter.readUInt32LE(4)).toBe(4);
    expect(filter.readUInt32LE(12)).toBe(arch === 'x64' ? 0xc000003e : 0xc00000b7);
  }
  expect(noSetidFilter('riscv64')).toBeUndefined();
});

describe('through the sandbox runner', () => {
  beforeAll(() => resetSandboxState());
  const plans: Array<[string, Partial<SandboxRequest>]> = [
    ['no network', { network: 'none' }],
    ['full network', { network: 'full' }],
    ['an allow-list', { network: { allowHosts: ['example.com'] } }],
  ];
  test.each(plans)('with %s, no file the commands made has a setuid or setgid bit', async (_name, sandbox) => {
    if (process.env.BAREAGENT_SANDBOX === 'off') throw new Error('refusing to run with BAREAGENT_SANDBOX=off');
    const saved = process.env.BAREAGENT_SANDBOX_MAX_NETWORK;
    process.env.BAREAGENT_SANDBOX_MAX_NETWORK = 'full';
    const workspace = freshWorkspace();
    try {
      const result = await runShell(`${ATTEMPTS}; ${ORDINARY}`, {
        workspace,
        sandbox: { network: 'none', readOnlyPaths: [], writableWorkspace: true, ...sandbox },
        timeoutMs: 30_000,
        maxChars: 100_000,
      });
      expect(result.sandbox).toBe('bubblewrap');
      expect(result.output).toContain('ordinary-ok');
      expect(result.output).toMatch(/Operation not permitted/);
      expect(setidFiles(workspace)).toEqual([]);
      // The copies exist: the bits were refused, not the files.
      expect(lstatSync(path.join(workspace, 'rootsh')).mode & 0o777).toBe(0o755);
      expect(lstatSync(path.join(workspace, 'plain')).mode & 0o777).toBe(0o755);
      expect(lstatSync(path.join(workspace, 'data')).mode & 0o777).toBe(0o640);
    } finally {
      if (saved === undefined) delete process.env.BAREAGENT_SANDBOX_MAX_NETWORK;
      else process.env.BAREAGENT_SANDBOX_MAX_NETWORK = saved;
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});

describe('through real runs', () => {
  let h: Harness;
  beforeAll(async () => {
    if (process.env.BAREAGENT_SANDBOX === 'off') throw new Error('refusing to run with BAREAGENT_SANDBOX=off');
    h = await Harness.create();
    await h.startWorker();
  });
  afterAll(async () => {
    await h.close();
  });

  const modes: Array<[PermissionMode, { allow: string[] } | undefined]> = [
    ['default', { allow: ['bash'] }],
    ['bypass', undefined],
  ];
  test.each(modes)('in %s mode the agent\'s bash leaves no setuid or setgid file', async (mode, rules) => {
    const workspace = freshWorkspace();
    try {
      const scenario = `setid-${mode}-${randomUUID()}`;
      h.model.setScenario(scenario, [
        { toolCalls: [{ id: 'setid', name: 'bash', arguments: { command: ATTEMPTS } }] },
        { toolCalls: [{ id: 'ordinary', name: 'bash', arguments: { command: ORDINARY } }] },
        { text: 'Done.' },
      ]);
      const handle = await h.start({ prompt: 'make a setuid shell', model: scenario, workspace, permissionMode: mode, stream: false, ...(rules ? { permissionRules: rules } : {}) });
      expect(await handle.result()).toMatchObject({ text: 'Done.' });
      expect(setidFiles(workspace)).toEqual([]);
      expect(lstatSync(path.join(workspace, 'rootsh')).mode & 0o777).toBe(0o755);
      expect(lstatSync(path.join(workspace, 'plain')).mode & 0o777).toBe(0o755);
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});
