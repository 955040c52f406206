/**
 * 4. Memory: the RSS of a worker in its own process with N runs open, each waiting for a human
 * (`bash touch x` asks in default mode) after a few read_file iterations.
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import type { ScriptStep } from '../src/testing/scripted-model-server';
import type { BenchContext } from './context';
import { makeWorkspace } from './conversation';
import { NoiseMeter, describeNoise } from './noise';
import { stamp, table, type Block } from './report';
import { bytes, inBatches, sleep } from './stats';
import { spawnWorker } from './worker-process';
import { statusQuery } from '../src/common/contract';

export async function memory(ctx: BenchContext): Promise<Block> {
  const runs = ctx.options.waitingRuns;
  const reads = ctx.options.runIterations;
  const meter = new NoiseMeter();
  const server = await ctx.defaultServer();
  const taskQueue = `bench-memory-${randomUUID().slice(0, 8)}`;
  const workspace = makeWorkspace(reads, 200);
  const worker = await spawnWorker({ address: server.address, taskQueue, modelUrl: ctx.model.url, bundlePath: ctx.bundle.codePath });
  const handles: WorkflowHandle[] = [];
  try {
    await sleep(3000);
    const idle = worker.memory();
    ctx.log(`memory: idle worker ${bytes(idle.rss)}; starting ${runs} runs that wait for a human`);
    for (let i = 0; i < runs; i++) {
      const name = `memory-${i}-${randomUUID().slice(0, 6)}`;
      let turn = 0;
      ctx.model.setScenario(name, (): ScriptStep => {
        const t = turn++;
        if (t < reads) return { toolCalls: [{ id: `r${t}`, name: 'read_file', arguments: { file_path: `f${t}.txt` } }] };
        if (t === reads) return { toolCalls: [{ id: 'ask', name: 'bash', arguments: { command: 'touch x' } }] };
        return { text: 'Done.' };
      });
      handles.push(
        await server.client.workflow.start('agentRun', {
          taskQueue,
          workflowId: name,
          args: [{ prompt: 'Read, then touch x.', model: name, workspace: workspace.dir, approvalTimeout: '1h' }],
        }),
      );
    }
    await waitUntilAllAsk(handles, 180_000);
    await sleep(3000);
    const waiting = worker.memory();
    ctx.model.requests.length = 0;
    const noise = meter.stop();
    return {
      id: 'memory',
      markdown: [
        '## 4. Memory',
        '',
        stamp(ctx.command),
        '',
        `A worker in its own process (\`node --import tsx src/worker.ts\`, prebuilt bundle, default options); RSS from \`/proc/<pid>/status\`. ` +
          `Each run does ${reads} \`read_file\` iterations, then asks to run \`bash touch x\` (default mode asks) and waits; all runs stay in the worker's cache.`,
        '',
        table(
          ['', 'RSS', 'peak RSS (VmHWM)'],
          [
            ['idle worker, polling', bytes(idle.rss), bytes(idle.peak)],
            [`${runs} runs waiting for a human`, bytes(waiting.rss), bytes(waiting.peak)],
            ['per waiting run', bytes((waiting.rss - idle.rss) / runs), '–'],
          ],
        ),
        '',
        'RSS is what the process holds, garbage not yet collected included; a run that waits holds no thread, only its cached workflow state (its V8 context share, messages, stream log).',
        '',
        `Noise: ${describeNoise(noise)}.`,
      ].join('\n'),
    };
  } finally {
    await inBatches(handles, 20, async (handle) => {
      await handle.terminate('bench finished').catch(() => undefined);
    });
    await worker.stop();
    workspace.dispose();
  }
}

async function waitUntilAllAsk(handles: WorkflowHandle[], timeoutMs: number): Promise<void> {
  const waiting = new Set<string>();
  for (const deadline = Date.now() + timeoutMs; waiting.size < handles.length; ) {
    if (Date.now() > deadline) throw new Error(`only ${waiting.size} of ${handles.length} runs reached the permission question in time`);
    await inBatches(
      handles.filter((h) => !waiting.has(h.workflowId)),
      20,
      async (handle) => {
        const status = await handle.query(statusQuery).catch(() => undefined);
        if (status && status.pendingPermissions.length > 0) waiting.add(handle.workflowId);
      },
    );
    if (waiting.size < handles.length) await sleep(500);
  }
}
