/**
 * 4. Memory: the RSS and live heap of a worker in its own process with N runs open, each waiting
 * for a human (`bash touch x` asks in default mode) after a few read_file iterations; then the
 * time an approval takes to reach a parked run: the `decidePermission` update (as the CLI's
 * prompt sends it) until it returns, and until the run's next model request (after the tool ran).
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import type { ScriptStep } from '../src/testing/scripted-model-server';
import { decidePermissionUpdate, statusQuery } from '../src/common/contract';
import { maxCachedWorkflowsFromEnv } from '../src/worker/cache-size';
import type { SearchAttributeName } from '../src/common/search-attributes';
import type { BenchContext } from './context';
import { makeWorkspace } from './conversation';
import { NoiseMeter, describeNoise } from './noise';
import { stamp, table, type Block } from './report';
import { productBundle } from './setup';
import { bytes, inBatches, ms, sleep, summarize } from './stats';
import { spawnWorker, type HeapFigures } from './worker-process';

const WAITING_FOR_HUMAN: SearchAttributeName = 'BareAgentWaitingForHuman';

/** How many parked runs of each group (first-started, last-started) are answered, one after the other, for the approval latency. */
const APPROVALS = 20;

export async function memory(ctx: BenchContext): Promise<Block> {
  const runs = ctx.options.waitingRuns;
  const reads = ctx.options.runIterations;
  const waveSize = Math.min(ctx.options.waveSize ?? runs, runs);
  const maxCached = ctx.options.maxCached ?? maxCachedWorkflowsFromEnv();
  const heapMiB = ctx.options.workerHeapMiB;
  const meter = new NoiseMeter();
  const server = await ctx.defaultServer();
  const taskQueue = `bench-memory-${randomUUID().slice(0, 8)}`;
  const workspace = makeWorkspace(reads, 200);
  // The workflow code exactly as `npm run worker` bundles it (interceptors and payload converter included).
  const bundle = await productBundle();
  const worker = await spawnWorker({
    address: server.address,
    taskQueue,
    modelUrl: ctx.model.url,
    bundlePath: bundle.codePath,
    heapProbe: true,
    nodeFlags: heapMiB === undefined ? [] : [`--max-old-space-size=${heapMiB}`],
    extraEnv: { BAREAGENT_MAX_CACHED_WORKFLOWS: maxCached === undefined ? '' : String(maxCached) },
  });
  const handles: WorkflowHandle[] = [];
  /** When each run sent its model request after the approved tool ran. */
  const resumedAt = new Map<string, number>();
  const requestIds = new Map<string, string>();
  try {
    await sleep(3000);
    const idle = { ...worker.memory(), heap: await worker.heap() };
    ctx.log(`memory: idle worker ${bytes(idle.rss)} (heap ${bytes(idle.heap.heapUsed)}); starting ${runs} runs that wait for a human, ${waveSize} at a time, cache ${maxCached ?? 'SDK default'}, heap limits ${heapLimits(idle.heap)}`);
    const startedAt = Date.now();
    const waves: Wave[] = [];
    for (let first = 0; first < runs; first += waveSize) {
      const waveStarted = Date.now();
      const indexes = Array.from({ length: Math.min(waveSize, runs - first) }, (_, i) => first + i);
      await inBatches(indexes, 10, async (i) => {
        const name = `memory-${i}-${randomUUID().slice(0, 6)}`;
        let turn = 0;
        ctx.model.setScenario(name, (): ScriptStep => {
          const t = turn++;
          if (t < reads) return { toolCalls: [{ id: `r${t}`, name: 'read_file', arguments: { file_path: `f${t}.txt` } }] };
          if (t === reads) return { toolCalls: [{ id: 'ask', name: 'bash', arguments: { command: 'touch x' } }] };
          resumedAt.set(name, performance.now());
          return { text: 'Done.' };
        });
        handles[i] = await server.client.workflow.start('agentRun', {
          taskQueue,
          workflowId: name,
          args: [{ prompt: 'Read, then touch x.', model: name, workspace: workspace.dir, approvalTimeout: '1h' }],
        });
      });
      await waitUntilAllAsk(
        indexes.map((i) => handles[i] as WorkflowHandle),
        Math.max(180_000, indexes.length * 600),
        requestIds,
      );
      ctx.model.requests.length = 0;
      waves.push({ parked: first + indexes.length, seconds: (Date.now() - waveStarted) / 1000, ...worker.memory() });
      const last = waves[waves.length - 1] as Wave;
      if (waveSize < runs) ctx.log(`memory: ${last.parked} runs parked (this wave in ${last.seconds.toFixed(1)} s), RSS ${bytes(last.rss)}`);
    }
    const parkedSeconds = (Date.now() - startedAt) / 1000;
    await sleep(3000);
    const waiting = { ...worker.memory(), heap: await worker.heap() };
    const groups = approvalGroups(handles);
    ctx.log(`memory: ${runs} waiting runs ${bytes(waiting.rss)} (heap ${bytes(waiting.heap.heapUsed)}) after ${parkedSeconds.toFixed(0)} s; answering ${groups.first.length} + ${groups.last.length}`);
    // The first-started runs first: answering them brings them back into the cache, which must not push the last wave out of it.
    const approvals = { first: await approveSome(groups.first, resumedAt, requestIds), last: await approveSome(groups.last, resumedAt, requestIds) };
    const after = worker.memory();
    ctx.model.requests.length = 0;
    const noise = meter.stop();
    const perRun = (a: number, b: number) => bytes((b - a) / runs);
    const latencyRows = (label: string, results: Approval[]) => {
      const update = summarize(results.map((a) => a.update));
      const next = summarize(results.map((a) => a.nextStep));
      return [
        [`${label}: update returns`, ms(update.p50), ms(update.p95), ms(update.max)],
        [`${label}: next model request`, ms(next.p50), ms(next.p95), ms(next.max)],
      ];
    };
    const heapText = `V8 heap limit per thread (${idle.heap.threads.length} threads): ${heapLimits(idle.heap)}${heapMiB === undefined ? ", Node's default" : `, \`node --max-old-space-size=${heapMiB}\``}`;
    const cacheText = maxCached === undefined ? 'the SDK default' : `${maxCached} runs`;
    const startText =
      waveSize < runs
        ? `The runs were started in waves of ${waveSize}, each wave parked (the \`BareAgentWaitingForHuman\` search attribute) before the next started; all ${runs} were parked after ${parkedSeconds.toFixed(0)} s.`
        : `All ${runs} runs were started at once and parked in ${parkedSeconds.toFixed(0)} s.`;
    return {
      id: 'memory',
      markdown: [
        '## 4. Memory',
        '',
        stamp(ctx.command),
        '',
        `A worker in its own process (\`node --import tsx src/worker.ts\`, the workflow bundle \`npm run worker\` builds, workflow cache: ${cacheText}, \`BAREAGENT_MAX_CACHED_WORKFLOWS\`; ${heapText}); RSS from \`/proc/<pid>/status\`, ` +
          `the live heap after a full GC (\`--expose-gc\`, bench/heap-probe.cjs). Each run does ${reads} \`read_file\` iterations, then asks to run \`bash touch x\` ` +
          `(default mode asks) and waits. ${startText}`,
        '',
        table(
          ['', 'RSS', 'peak RSS (VmHWM)', 'V8 heaps used, after GC', 'of which the workflow thread', 'V8 heaps committed, after GC'],
          [
            ['idle worker, polling', bytes(idle.rss), bytes(idle.peak), bytes(idle.heap.heapUsed), bytes(workflowThread(idle.heap)), bytes(idle.heap.heapCommitted)],
            [`${runs} runs waiting for a human`, bytes(waiting.rss), bytes(waiting.peak), bytes(waiting.heap.heapUsed), bytes(workflowThread(waiting.heap)), bytes(waiting.heap.heapCommitted)],
            ['per waiting run', perRun(idle.rss, waiting.rss), '–', perRun(idle.heap.heapUsed, waiting.heap.heapUsed), perRun(workflowThread(idle.heap), workflowThread(waiting.heap)), perRun(idle.heap.heapCommitted, waiting.heap.heapCommitted)],
            [`after ${approvals.first.length + approvals.last.length} approvals`, bytes(after.rss), bytes(after.peak), '–', '–', '–'],
          ],
        ),
        '',
        `Heap spaces, per waiting run: ${spaceGrowth(idle.heap.spaces, waiting.heap.spaces, runs)}.`,
        ...(waveSize < runs
          ? [
              '',
              'RSS as the waves parked (read as each wave had parked, no GC forced):',
              '',
              table(
                ['runs parked', 'this wave parked in', 'RSS', 'peak RSS (VmHWM)'],
                sampleWaves(waves).map((w) => [w.parked, `${w.seconds.toFixed(1)} s`, bytes(w.rss), bytes(w.peak)]),
              ),
            ]
          : []),
        '',
        `Answering a parked run: the ${approvals.first.length} first-started runs (the oldest first; ` +
          `${maxCached !== undefined && runs - approvals.first.length >= maxCached ? 'evicted: more runs than the cache holds were active after them' : 'still cached unless the SDK evicted them'}), ` +
          `then the ${approvals.last.length} last-started (still cached), one after the other; ` +
          'the `decidePermission` update sent as `bareagent` sends it, timed until it returns and until the run sends its next model request (the approved `bash` ran in between).',
        '',
        table(['', 'p50', 'p95', 'max'], [...latencyRows('first-started', approvals.first), ...latencyRows('last-started', approvals.last)]),
        '',
        'RSS is what the process holds, garbage not yet collected included; a run that waits holds no thread, only its cached workflow state (the modules it instantiated for itself, messages, stream log), and nothing once the cache evicted it: an answer to an evicted run replays its history first.',
        '',
        `Noise: ${describeNoise(noise)}.`,
      ].join('\n'),
    };
  } finally {
    await inBatches(handles.filter(Boolean), 20, async (handle) => {
      await handle.terminate('bench finished').catch(() => undefined);
    });
    await worker.stop();
    workspace.dispose();
    bundle.dispose();
  }
}

interface Wave {
  /** Runs parked so far, this wave included. */
  parked: number;
  seconds: number;
  rss: number;
  peak: number;
}

interface Approval {
  update: number;
  nextStep: number;
}

/** At most ~10 rows: every k-th wave and the last. */
function sampleWaves(waves: Wave[]): Wave[] {
  const every = Math.max(1, Math.ceil(waves.length / 10));
  return waves.filter((_, i) => (i + 1) % every === 0 || i === waves.length - 1);
}

/** The first-started and the last-started runs, APPROVALS of each (fewer when there are not enough runs). */
function approvalGroups(handles: WorkflowHandle[]): { first: WorkflowHandle[]; last: WorkflowHandle[] } {
  const n = Math.max(1, Math.min(APPROVALS, Math.floor(handles.length / 2)));
  const first = handles.slice(0, n);
  return { first, last: handles.slice(-n).filter((h) => !first.includes(h)) };
}

async function approveSome(chosen: WorkflowHandle[], resumedAt: Map<string, number>, requestIds: Map<string, string>): Promise<Approval[]> {
  const results: Approval[] = [];
  for (const handle of chosen) {
    const sent = performance.now();
    await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: requestIds.get(handle.workflowId) as string, decision: 'allow' }] });
    const update = performance.now() - sent;
    for (const deadline = Date.now() + 30_000; !resumedAt.has(handle.workflowId); ) {
      if (Date.now() > deadline) throw new Error(`${handle.workflowId} did not go on within 30 s of its approval`);
      await sleep(1);
    }
    results.push({ update, nextStep: (resumedAt.get(handle.workflowId) as number) - sent });
    await sleep(200);
  }
  return results;
}

function heapLimits(heap: HeapFigures): string {
  return [...heap.threads]
    .sort((a, b) => a.threadId - b.threadId)
    .map((t) => bytes(t.heapLimit))
    .join(' / ');
}

/** The SDK runs workflows in worker threads of their own; the main thread is 0. */
function workflowThread(heap: HeapFigures): number {
  return heap.threads.filter((t) => t.threadId !== 0).reduce((sum, t) => sum + t.heapUsed, 0);
}

function spaceGrowth(before: Record<string, number>, after: Record<string, number>, runs: number): string {
  return Object.keys(after)
    .map((space) => ({ space, delta: ((after[space] ?? 0) - (before[space] ?? 0)) / runs }))
    .filter((s) => Math.abs(s.delta) >= 1024)
    .sort((a, b) => b.delta - a.delta)
    .map((s) => `${s.space} ${bytes(s.delta)}`)
    .join(', ');
}

async function waitUntilAllAsk(handles: WorkflowHandle[], timeoutMs: number, requestIds: Map<string, string>): Promise<void> {
  const waiting = new Set<string>();
  for (const deadline = Date.now() + timeoutMs; waiting.size < handles.length; ) {
    if (Date.now() > deadline) throw new Error(`only ${waiting.size} of ${handles.length} runs reached the permission question in time`);
    await inBatches(
      handles.filter((h) => !waiting.has(h.workflowId)),
      20,
      async (handle) => {
        // The search attribute, not the status query: a query would bring an evicted run back into the worker's cache.
        const described = await handle.describe().catch(() => undefined);
        if (described?.searchAttributes[WAITING_FOR_HUMAN]?.[0] !== true) return;
        // Asked now, while the run of this wave is still cached: its request's id, for the approval later.
        const pending = (await handle.query(statusQuery)).pendingPermissions[0];
        if (!pending) return;
        requestIds.set(handle.workflowId, pending.requestId);
        waiting.add(handle.workflowId);
      },
    );
    if (waiting.size < handles.length) await sleep(500);
  }
}
