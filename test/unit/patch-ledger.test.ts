import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PATCH_LEDGER } from '../../src/common/patch-ledger';
import { openRunsQuery, startedBefore } from '../../src/cli/commands/patches';

/** The ledger and the workflow code name the same patches, each in the state the code treats it. */
const WORKFLOWS = path.resolve(__dirname, '../../src/workflows');
const sources = readdirSync(WORKFLOWS)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => readFileSync(path.join(WORKFLOWS, f), 'utf8'));
const patchesTs = readFileSync(path.join(WORKFLOWS, 'patches.ts'), 'utf8');

/** `export const NAME = 'id'` in patches.ts, by constant name. */
const constants = new Map([...patchesTs.matchAll(/export const ([A-Z_]+) = '([a-z-]+)'/g)].map((m) => [m[1]!, m[2]!]));
const asked = new Set(sources.flatMap((s) => [...s.matchAll(/\bpatched\(([A-Z_]+)\)/g)].map((m) => constants.get(m[1]!) ?? `unknown constant ${m[1]}`)));
const retired = /const RETIRED_AT_START = \[([^\]]*)\]/.exec(patchesTs)?.[1]?.match(/'[a-z-]+'/g)?.map((q) => q.slice(1, -1)) ?? [];

test('every patch the workflow asks is active in the ledger, and every active one is asked', () => {
  const active = PATCH_LEDGER.filter((p) => p.state === 'active').map((p) => p.id);
  expect([...asked].sort()).toEqual([...active].sort());
});

test('every deprecated patch is still marked, in the ledger order, and nothing else is', () => {
  const deprecated = PATCH_LEDGER.filter((p) => p.state === 'deprecated').map((p) => p.id);
  expect(retired).toEqual(deprecated);
  expect(sources.join('\n')).not.toMatch(/deprecatePatch\((?!id\))/);
});

test('ids are unique, dated and say what they keep', () => {
  expect(new Set(PATCH_LEDGER.map((p) => p.id)).size).toBe(PATCH_LEDGER.length);
  for (const p of PATCH_LEDGER) {
    expect(p.shipped).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(p.keeps.length).toBeGreaterThan(10);
    if (p.state !== 'active') expect(p.retired?.on).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  }
});

test('open runs are counted up to the end of the ship day, the safe side', () => {
  expect(startedBefore('2026-11-30')).toBe('2026-12-01T00:00:00Z');
  expect(startedBefore('2026-12-31')).toBe('2027-01-01T00:00:00Z');
  expect(openRunsQuery({ shipped: '2026-11-30' }, "TaskQueue = 'q'")).toBe(
    "WorkflowType = 'agentRun' AND ExecutionStatus = 'Running' AND StartTime < '2026-12-01T00:00:00Z' AND (TaskQueue = 'q')",
  );
});

test("ARCHITECTURE.md's patch table lists every ledger entry with its state", () => {
  const doc = readFileSync(path.resolve(__dirname, '../../ARCHITECTURE.md'), 'utf8');
  for (const p of PATCH_LEDGER) expect(doc).toMatch(new RegExp(`^\\| \`${p.id}\` \\| ${p.shipped} \\| ${p.version} \\| .+ \\| ${p.state}\\b`, 'm'));
});
