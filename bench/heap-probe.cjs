/**
 * Loaded into every thread of the memory bench's worker process (`--require`, with `--expose-gc`),
 * never by the product. When the bench creates BENCH_HEAP_PROBE.request (a signal would not do: the
 * SDK's runtime shuts the worker down on SIGUSR2), the main thread asks every thread, the SDK's workflow thread
 * included (its own V8 heap, where the cached runs live), to collect garbage and write its heap's
 * figures to BENCH_HEAP_PROBE.<thread id>; with BENCH_HEAP_SNAPSHOT=1 also a heap snapshot beside it.
 */
const { existsSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const v8 = require('node:v8');
const { BroadcastChannel, isMainThread, threadId } = require('node:worker_threads');

const out = process.env.BENCH_HEAP_PROBE;
if (out) {
  const channel = new BroadcastChannel('bench-heap-probe');
  channel.unref();
  let probes = 0;
  const report = () => {
    globalThis.gc?.();
    const usage = process.memoryUsage();
    const heap = v8.getHeapStatistics();
    const figures = {
      threadId,
      rss: usage.rss,
      heapUsed: heap.used_heap_size,
      heapCommitted: heap.total_heap_size,
      heapLimit: heap.heap_size_limit,
      external: heap.external_memory,
      spaces: Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size])),
    };
    probes++;
    if (process.env.BENCH_HEAP_SNAPSHOT === '1') v8.writeHeapSnapshot(`${out}.${threadId}.${probes}.heapsnapshot`);
    writeFileSync(`${out}.${threadId}.tmp`, JSON.stringify(figures));
    renameSync(`${out}.${threadId}.tmp`, `${out}.${threadId}`);
  };
  channel.onmessage = report;
  if (isMainThread) {
    setInterval(() => {
      if (!existsSync(`${out}.request`)) return;
      rmSync(`${out}.request`);
      channel.postMessage('probe');
      report();
    }, 100).unref();
  }
}
