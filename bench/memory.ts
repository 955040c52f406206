/**
 * 4. Memory: the RSS and live heap of a worker in its own process with N runs open, each waiting
 * for a human (`bash touch x` asks in default mode) after a few read_file iterations; then the
 * time an approval takes to reach a parked run: the `decidePermission` update (as the CLI's
 * prompt sends it) until it returns, and until the run's next model request (after the tool ran).
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import type { ScriptStep } from '../src/testing/scripted-model-server';
import { decidePermissionUpdate } from '../src/common/contract';
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

/** How many parked runs are answered, one after the other, for the approval latency. */
const APPROVALS = 20;

export async function memory(ctx: BenchContext): Promise<Block> {
  const runs = ctx.options.waitingRuns;
  const reads = ctx.options.runIterations;
  const meter = new NoiseMeter();
  const server = await ctx.defaultServer();
  const taskQueue = `bench-memory-${randomUUID().slice(0, 8)}`;
  const workspace = makeWorkspace(reads, 200);
  // The workflow code exactly as `npm run worker` bundles it (interceptors and payload converter included).
  const bundle = await productBundle();
  const worker = await spawnWorker({ address: server.address, taskQueue, modelUrl: ctx.model.url, bundlePath: bundle.codePath, heapProbe: true });
  const handles: WorkflowHandle[] = [];
  /** When each run sent its model request after the approved tool ran. */
  const resumedAt = new Map<string, number>();
  try {
    await sleep(3000);
    const idle = { ...worker.memory(), heap: await worker.heap() };
    ctx.log(`memory: idle worker ${bytes(idle.rss)} (heap ${bytes(idle.heap.heapUsed)}); starting ${runs} runs that wait for a human`);
    const startedAt = Date.now();
    await inBatches(
      Array.from({ length: runs }, (_, i) => i),
      10,
      async (i) => {
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
      },
    );
    await waitUntilAllAsk(handles, Math.max(180_000, runs * 600));
    const parkedSeconds = (Date.now() - startedAt) / 1000;
    await sleep(3000);
    const waiting = { ...worker.memory(), heap: await worker.heap() };
    ctx.log(`memory: ${runs} waiting runs ${bytes(waiting.rss)} (heap ${bytes(waiting.heap.heapUsed)}) after ${parkedSeconds.toFixed(0)} s; answering ${APPROVALS}`);
    const approvals = await approveSome(handles, resumedAt);
    const after = worker.memory();
    ctx.model.requests.length = 0;
    const noise = meter.stop();
    const perRun = (a: number, b: number) => bytes((b - a) / runs);
    const update = summarize(approvals.map((a) => a.update));
    const next = summarize(approvals.map((a) => a.nextStep));
    return {
      id: 'memory',
      markdown: [
        '## 4. Memory',
        '',
        stamp(ctx.command),
        '',
        `A worker in its own process (\`node --import tsx src/worker.ts\`, the workflow bundle \`npm run worker\` builds, workflow cache: ${maxCachedWorkflowsFromEnv() ?? 'the SDK default'} runs, \`BAREAGENT_MAX_CACHED_WORKFLOWS\`); RSS from \`/proc/<pid>/status\`, ` +
          `the live heap after a full GC (\`--expose-gc\`, bench/heap-probe.cjs). Each run does ${reads} \`read_file\` iterations, then asks to run \`bash touch x\` ` +
          `(default mode asks) and waits. All ${runs} runs were parked in ${parkedSeconds.toFixed(0)} s.`,
        '',
        table(
          ['', 'RSS', 'peak RSS (VmHWM)', 'V8 heaps used, after GC', 'of which the workflow thread'],
          [
            ['idle worker, polling', bytes(idle.rss), bytes(idle.peak), bytes(idle.heap.heapUsed), bytes(workflowThread(idle.heap))],
            [`${runs} runs waiting for a human`, bytes(waiting.rss), bytes(waiting.peak), bytes(waiting.heap.heapUsed), bytes(workflowThread(waiting.heap))],
            ['per waiting run', perRun(idle.rss, waiting.rss), '–', perRun(idle.heap.heapUsed, waiting.heap.heapUsed), perRun(workflowThread(idle.heap), workflowThread(waiting.heap))],
            [`after ${approvals.length} approvals`, bytes(after.rss), bytes(after.peak), '–', '–'],
          ],
        ),
        '',
        `Heap spaces, per waiting run: ${spaceGrowth(idle.heap.spaces, waiting.heap.spaces, runs)}.`,
        '',
        `Answering a parked run: ${approvals.length} runs spread over the ${runs} (the oldest first), one after the other; ` +
          'the `decidePermission` update sent as `bareagent` sends it, timed until it returns and until the run sends its next model request (the approved `bash` ran in between).',
        '',
        table(
          ['', 'p50', 'p95', 'max'],
          [
            ['update returns', ms(update.p50), ms(update.p95), ms(update.max)],
            ['next model request', ms(next.p50), ms(next.p95), ms(next.max)],
          ],
        ),
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

async function approveSome(handles: WorkflowHandle[], resumedAt: Map<string, number>): Promise<Array<{ update: number; nextStep: number }>> {
  const step = Math.max(1, Math.floor(handles.length / APPROVALS));
  const chosen = handles.filter((_, i) => i % step === 0).slice(0, APPROVALS);
  const results: Array<{ update: number; nextStep: number }> = [];
  for (const handle of chosen) {
    const sent = performance.now();
    await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId: 'ask', decision: 'allow' }] });
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

async function waitUntilAllAsk(handles: WorkflowHandle[], timeoutMs: number): Promise<void> {
  const waiting = new Set<string>();
  for (const deadline = Date.now() + timeoutMs; waiting.size < handles.length; ) {
    if (Date.now() > deadline) throw new Error(`only ${waiting.size} of ${handles.length} runs reached the permission question in time`);
    await inBatches(
      handles.filter((h) => !waiting.has(h.workflowId)),
      20,
      async (handle) => {
        // The search attribute, not the status query: a query would bring an evicted run back into the worker's cache.
        const described = await handle.describe().catch(() => undefined);
        if (described?.searchAttributes[WAITING_FOR_HUMAN]?.[0] === true) waiting.add(handle.workflowId);
      },
    );
    if (waiting.size < handles.length) await sleep(500);
  }
}
