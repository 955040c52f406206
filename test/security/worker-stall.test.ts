/**
 * No tool call stalls the worker: while a run makes hostile calls whose work on the worker used to
 * grow without bound (an edit_file miss compared with every window of a huge file, an open walked
 * again from the root at each link of a chain over a deep folder), another run on the same worker
 * keeps its pace. Its time alone is measured first, in the same test; the hostile calls each end
 * with a clear result.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ToolResultBlock } from '../../src/common/messages';
import { messagesQuery } from '../../src/common/contract';
import { Harness } from '../support/harness';

let h: Harness;

beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});

afterAll(async () => {
  await h.close();
});

/** A run of one read_file, start to result. */
async function benignRunMs(workspace: string): Promise<number> {
  const scenario = `benign-${randomUUID()}`;
  h.model.setScenario(scenario, [{ toolCalls: [{ id: 'r', name: 'read_file', arguments: { file_path: 'small.txt' } }] }, { text: 'Read.' }]);
  const started = performance.now();
  expect(await h.execute({ prompt: 'read', model: scenario, workspace, stream: false })).toMatchObject({ text: 'Read.' });
  return performance.now() - started;
}

interface Hostile {
  workspace: string;
  calls: Array<{ name: string; arguments: Record<string, unknown> }>;
  /** What each hostile call's result must say. */
  result: RegExp;
}

function editMiss(): Hostile {
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'stall-edit-'));
  writeFileSync(path.join(workspace, 'big.txt'), Array.from({ length: 80_000 }, (_, i) => `line ${i} some code here();`).join('\n'));
  const distinct = Array.from({ length: 20_000 }, (_, i) => String.fromCharCode(0x4e00 + i)).join('');
  const calls = Array.from({ length: 6 }, (_, i) => ({ name: 'edit_file', arguments: { file_path: 'big.txt', old_text: distinct, new_text: `x${i}` } }));
  return { workspace, calls, result: /old_text not found in file big\.txt/ };
}

function linkChain(): Hostile {
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'stall-links-'));
  const deep = Array.from({ length: 1000 }, () => 'd').join('/');
  mkdirSync(path.join(workspace, deep), { recursive: true });
  writeFileSync(path.join(workspace, deep, 'x.txt'), 'bottom\n');
  // Each link names the next in the same folder: every hop is a walk of 1,001 folders from the root.
  for (let k = 1; k <= 30; k++) symlinkSync(k === 30 ? 'x.txt' : `l${k + 1}`, path.join(workspace, deep, `l${k}`));
  const calls = Array.from({ length: 10 }, (_, i) => ({ name: 'read_file', arguments: { file_path: `${deep}/l1`, offset: i } }));
  return { workspace, calls, result: /takes more than \d+ folders to reach through its links/ };
}

test.each([['an edit_file miss on a huge file', editMiss], ['read_file through a link chain over a deep folder', linkChain]] as const)(
  '%s: another run on the same worker keeps its pace',
  async (_name, make) => {
    const hostile = make();
    const quiet = h.workspace({ 'small.txt': 'hello\n' });
    await benignRunMs(quiet); // warm up
    const alone = Math.min(await benignRunMs(quiet), await benignRunMs(quiet), await benignRunMs(quiet));

    const scenario = `hostile-${randomUUID()}`;
    let served!: () => void;
    const callsMade = new Promise<void>((resolve) => (served = resolve));
    h.model.setScenario(scenario, (_body, index) => {
      if (index === 0) {
        served();
        return { toolCalls: hostile.calls.map((call, i) => ({ id: `hostile-${i}`, ...call })) };
      }
      return index === 1 ? { text: 'Done.' } : undefined;
    });
    const handle = await h.start({ prompt: 'stall', model: scenario, workspace: hostile.workspace, stream: false });
    await callsMade;
    const during = await benignRunMs(quiet);
    expect(await handle.result()).toMatchObject({ text: 'Done.' });

    const results: string[] = [];
    for (const message of await handle.query(messagesQuery)) {
      if (message.role !== 'user' || !Array.isArray(message.content)) continue;
      for (const block of message.content as ToolResultBlock[]) if (block.type === 'tool_result') results.push(block.content);
    }
    expect(results).toHaveLength(hostile.calls.length);
    // Older results are shortened in the history (micro-compaction): the rest say why the call failed.
    expect(results.filter((result) => !result.startsWith('[truncated: ')).length).toBeGreaterThan(0);
    for (const result of results.filter((r) => !r.startsWith('[truncated: '))) expect(result).toMatch(hostile.result);
    // Unbounded, the other run waited 49 s (edit) and 26 s (links) behind these calls.
    const bound = Math.max(5 * alone, alone + 2000);
    expect(during).toBeLessThan(bound);
  },
  120_000,
);
