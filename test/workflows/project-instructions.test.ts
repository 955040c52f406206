import { symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Harness } from '../support/harness';
import { statusQuery } from '../../src/common/contract';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

async function run(workspace: string, input: Record<string, unknown> = {}) {
  const scenario = `instr-${Math.random()}`;
  h.model.setScenario(scenario, [{ toolCalls: [{ id: 'c1', name: 'glob', arguments: { pattern: '*' } }] }, { text: 'Done.' }]);
  const handle = await h.start({ prompt: 'Work', model: scenario, workspace, stream: false, ...input });
  await handle.result();
  const requests = h.model.requestsFor(scenario);
  const system = (i: number) => requests[i]?.body.messages.find((m: { role: string }) => m.role === 'system')?.content as string | undefined;
  return { status: await handle.query(statusQuery), system, requests };
}

test("the workspace's AGENTS.md is in every turn's system prompt, after the run's own, and status names it", async () => {
  const workspace = h.workspace({ 'AGENTS.md': 'Run tests with `make check`.\n', 'CLAUDE.md': 'not this one' });
  const { status, system } = await run(workspace, { systemPrompt: 'You are careful.' });
  for (const i of [0, 1]) {
    expect(system(i)).toBe('You are careful.\n\n# Project instructions (AGENTS.md)\n\nRun tests with `make check`.');
  }
  expect(status.projectInstructions).toEqual({ files: ['AGENTS.md'] });
});

test('CLAUDE.md when there is no AGENTS.md; capped at 32 KiB', async () => {
  const { status, system } = await run(h.workspace({ 'CLAUDE.md': 'x'.repeat(40_000) }));
  expect(status.projectInstructions).toEqual({ files: ['CLAUDE.md'], truncated: true });
  expect(system(0)).toContain(`${'x'.repeat(32 * 1024)}\n[truncated: ${40_000 - 32 * 1024} more characters]`);
  const instructions = system(0)?.slice(system(0)?.indexOf('# Project instructions'));
  expect(instructions?.length).toBeLessThan(33_500);
});

test('projectInstructions: false leaves it out; no file, nothing added to the default prompt', async () => {
  const off = await run(h.workspace({ 'AGENTS.md': 'secret sauce' }), { projectInstructions: false });
  expect(off.system(0)).not.toContain('secret sauce');
  expect(off.system(0)).not.toContain('# Project instructions');
  expect(off.status.projectInstructions).toBeUndefined();
  const none = await run(h.workspace());
  expect(none.system(0)).toMatch(/^You are BareAgent/);
  expect(none.system(0)).not.toContain('# Project instructions');
  expect(none.status.projectInstructions).toEqual({ files: [] });
});

test('an AGENTS.md symlink that leads out of the workspace is refused, and the run goes on', async () => {
  const outside = path.join(os.tmpdir(), `bareagent-outside-${process.pid}.txt`);
  writeFileSync(outside, 'worker-private-content');
  const workspace = h.workspace();
  symlinkSync(outside, path.join(workspace, 'AGENTS.md'));
  const { status, system } = await run(workspace);
  expect(system(0)).not.toContain('worker-private-content');
  expect(system(0)).not.toContain('# Project instructions');
  expect(status.projectInstructions).toMatchObject({ files: [], error: expect.stringContaining('outside the workspace') });
});

test("a directory's AGENTS.md joins the system prompt once the run first touches it, read once, never from outside", async () => {
  const scenario = `nested-${Math.random()}`;
  h.model.setScenario(scenario, [
    { toolCalls: [{ id: 'r1', name: 'read_file', arguments: { file_path: 'pkg/sub/x.ts' } }] },
    { toolCalls: [{ id: 'r2', name: 'read_file', arguments: { file_path: 'pkg/sub/x.ts' } }, { id: 'r3', name: 'read_file', arguments: { file_path: '../etc/hostname' } }] },
    { text: 'Done.' },
  ]);
  const workspace = h.workspace({ 'AGENTS.md': 'Root rule.\n', 'pkg/AGENTS.md': 'Pkg rule: use tabs.\n', 'pkg/sub/x.ts': 'export {};\n', 'other/AGENTS.md': 'Never read.\n' });
  const handle = await h.start({ prompt: 'Work', model: scenario, workspace, stream: false });
  await handle.result();
  const system = (i: number) => h.model.requestsFor(scenario)[i]?.body.messages.find((m: { role: string }) => m.role === 'system')?.content as string;
  // After the default prompt, which stays the same from turn to turn.
  const base = system(0).split('\n\n# Project instructions')[0] ?? '';
  expect(base).toMatch(/^You are BareAgent/);
  expect(system(0)).toBe(`${base}\n\n# Project instructions (AGENTS.md)\n\nRoot rule.`);
  expect(system(1)).toBe(`${base}\n\n# Project instructions (AGENTS.md, pkg/AGENTS.md)\n\nRoot rule.\n\n## pkg/AGENTS.md\n\nPkg rule: use tabs.`);
  expect(system(2)).toBe(system(1));
  expect((await handle.query(statusQuery)).projectInstructions).toEqual({ files: ['AGENTS.md', 'pkg/AGENTS.md'] });
  // One reading for pkg and pkg/sub; the same directories again, or a path outside, read nothing.
  const readings = (await handle.fetchHistory()).events?.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'readNestedInstructions') ?? [];
  expect(readings).toHaveLength(1);
});
