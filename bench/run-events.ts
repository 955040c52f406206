/**
 * How many events a short run leaves in its history, and of which kind, with a follower reading
 * its stream the whole time (as `bareagent run` does): two model turns that stream their text
 * (the first calls `read_file`, the second answers), checkpoints on, default mode.
 * `npm run bench -- --only events`.
 */
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import { followRun } from '../src/cli/follow';
import { forgetRequests } from './agent-runs';
import type { BenchContext } from './context';
import { makeWorkspace } from './conversation';
import { temporal } from '@temporalio/proto';
import { fetchEvents } from './history';
import { stamp, table, type Block } from './report';

const EventType = temporal.api.enums.v1.EventType;

/** A kind of event as the Web UI's timeline groups it: activities and signals by their type's name. */
function kindOf(event: Awaited<ReturnType<typeof fetchEvents>>[number]): string {
  const type = event.eventType;
  const name = String(typeof type === 'number' ? EventType[type] : (type ?? ''))
    .replace(/^EVENT_TYPE_/, '')
    .toLowerCase();
  const activity = event.activityTaskScheduledEventAttributes?.activityType?.name;
  if (activity) return `activity scheduled: ${activity}`;
  const signal = event.workflowExecutionSignaledEventAttributes?.signalName;
  if (signal) return `signal: ${signal}`;
  const update = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name;
  if (update) return `update accepted: ${update}`;
  const marker = event.markerRecordedEventAttributes?.markerName;
  if (marker) return `marker: ${marker}`;
  return name.startsWith('workflow_task_') ? 'workflow task (scheduled, started, completed)' : name.replace(/_/g, ' ');
}

export async function runEvents(ctx: BenchContext): Promise<Block> {
  const server = await ctx.defaultServer();
  const worker = await ctx.worker(server, 'bench-run-events');
  const workspace = makeWorkspace(20, 1024);
  const counts: Array<Record<string, number>> = [];
  try {
    for (let r = 0; r < ctx.options.repeats; r++) {
      const id = `run-events-${randomUUID().slice(0, 8)}`;
      let turn = 0;
      ctx.model.setScenario(id, () =>
        turn++ === 0
          ? { chunks: ['Reading ', 'the first ', 'file.'], chunkDelayMs: 150, toolCalls: [{ id: 'r0', name: 'read_file', arguments: { file_path: 'f0.txt' } }] }
          : { chunks: ['It holds ', 'a kilobyte ', 'of text.'], chunkDelayMs: 150 },
      );
      const handle = await server.client.workflow.start('agentRun', {
        taskQueue: worker.taskQueue,
        workflowId: id,
        args: [{ prompt: 'What is in f0.txt?', model: id, workspace: workspace.dir }],
      });
      await followRun(server.client, id, () => undefined);
      await handle.result();
      const byKind: Record<string, number> = {};
      const events = await fetchEvents(server.client, id);
      for (const event of events) byKind[kindOf(event)] = (byKind[kindOf(event)] ?? 0) + 1;
      byKind.total = events.length;
      counts.push(byKind);
      forgetRequests(ctx.model);
    }
  } finally {
    await worker.stop();
    workspace.dispose();
  }
  const kinds = [...new Set(counts.flatMap((c) => Object.keys(c)))].filter((k) => k !== 'total').sort();
  const cell = (kind: string) => [...new Set(counts.map((c) => c[kind] ?? 0))].join(' / ');
  const markdown = [
    '## Events in a short run\'s history',
    '',
    stamp(ctx.command),
    '',
    `Load average when it ended: ${os.loadavg().map((x) => x.toFixed(1)).join(', ')} on ${os.cpus().length} CPUs. ${ctx.options.repeats} runs of \`agentRun\` on an in-process worker: two model turns that stream three deltas 150 ms apart (the first calls \`read_file\`, the second answers), checkpoints on, default mode, followed from offset 0 by \`followRun\` (what \`bareagent run\` and \`follow\` use) until the end. Distinct counts across the runs are separated by /.`,
    '',
    table(['kind of event', 'count'], [...kinds.map((kind) => [kind, cell(kind)]), ['**total**', cell('total')]]),
  ].join('\n');
  return { id: 'events', markdown };
}
