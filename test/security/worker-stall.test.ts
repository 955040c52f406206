/**
 * No tool call stalls the worker: while a run makes hostile calls whose work on the worker used to
 * grow without bound (an edit_file miss compared with every window of a huge file, an open walked
 * again from the root at each link of a chain over a deep folder), another run on the same worker
 * keeps its pace. Its time alone is measured first, in the same test; the hostile calls each end
 * with a clear result.
 */
import { Harness } from '../support/harness';
import { editMiss, latencyDuring, linkChain, stallBound } from './attacks';

let h: Harness;

beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});

afterAll(async () => {
  await h.close();
});

test.each([['an edit_file miss on a huge file', editMiss], ['read_file through a link chain over a deep folder', linkChain]] as const)(
  '%s: another run on the same worker keeps its pace',
  async (_name, make) => {
    const hostile = make();
    const { alone, during, results } = await latencyDuring(h, hostile);
    expect(results).toHaveLength(hostile.calls.length);
    // Older results are shortened in the history (micro-compaction): the rest say why the call failed.
    expect(results.filter((result) => !result.startsWith('[truncated: ')).length).toBeGreaterThan(0);
    for (const result of results.filter((r) => !r.startsWith('[truncated: '))) expect(result).toMatch(hostile.result);
    expect(during).toBeLessThan(stallBound(alone));
  },
  120_000,
);
