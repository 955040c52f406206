/**
 * What a tree budget's reservation costs a subagent per model call: a parent hands one task to a
 * foreground subagent whose every turn is one read_file, with `budgets.maxTokens` (each of the
 * subagent's calls first reserves from the root: a local activity executing the root's
 * `reserveTreeBudget` update, and a `treeSpend` signal after) and without (no reservation), interleaved.
 * `npm run bench -- --only tree-reservation`.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { forgetRequests } from './agent-runs';
import type { BenchContext } from './context';
import { makeWorkspace } from './conversation';
import { stamp, table, type Block } from './report';
import { ms, summarize } from './stats';

type Mode = 'no budget' | 'maxTokens (reservations)';

export async function treeReservation(ctx: BenchContext): Promise<Block> {
  const { iterations, repeats } = ctx.options;
  const server = await ctx.defaultServer();
  const worker = await ctx.worker(server, 'bench-tree-reservation');
  const workspace = makeWorkspace(20, 1024);
  const modes = ['no budget', 'maxTokens (reservations)'] as const satisfies readonly Mode[];
  const latencies = new Map<Mode, number[]>();
  const once = async (mode: Mode, turns: number, keep: boolean) => {
    const id = `tree-reservation-${randomUUID().slice(0, 8)}`;
    const times: number[] = [];
    let parentTurn = 0;
    ctx.model.setScenario(id, (body: { messages: Array<{ role: string; content: unknown }> }) => {
      const prompt = String(body.messages.find((m) => m.role === 'user')?.content ?? '');
      if (prompt === 'Delegate.') {
        parentTurn += 1;
        return parentTurn === 1 ? { toolCalls: [{ id: 'sub', name: 'subagent', arguments: { task: 'Read the files.', agent_type: 'general-purpose' } }] } : { text: 'Delegated.' };
      }
      times.push(performance.now());
      const turn = times.length - 1;
      return turn < turns ? { toolCalls: [{ id: `r${turn}`, name: 'read_file', arguments: { file_path: `f${turn % workspace.files}.txt` } }] } : { text: 'Read.' };
    });
    const input = { prompt: 'Delegate.', model: id, workspace: workspace.dir, stream: false, permissionMode: 'bypass', checkpoints: false, ...(mode === modes[1] ? { budgets: { maxTokens: 100_000_000 } } : {}) };
    await server.client.workflow.execute('agentRun', { taskQueue: worker.taskQueue, workflowId: id, args: [input] });
    if (keep) latencies.set(mode, [...(latencies.get(mode) ?? []), ...times.slice(1).map((t, i) => t - (times[i] as number))]);
    forgetRequests(ctx.model);
  };
  try {
    ctx.log(`tree-reservation: warming up, then ${repeats} × 2 runs of a subagent with ${iterations} turns`);
    for (const mode of modes) await once(mode, 5, false);
    for (let r = 0; r < repeats; r++) for (const mode of modes) await once(mode, iterations, true);
  } finally {
    await worker.stop();
    workspace.dispose();
  }
  const none = summarize(latencies.get(modes[0]) ?? []);
  const reserved = summarize(latencies.get(modes[1]) ?? []);
  const markdown = [
    '## A tree budget\'s reservation, per model call of a subagent',
    '',
    stamp(ctx.command),
    '',
    `Load average when it ended: ${os.loadavg().map((x) => x.toFixed(1)).join(', ')} on ${os.cpus().length} CPUs. ${repeats} × 2 \`agentRun\` parents on an in-process worker, interleaved, each handing one task to a foreground subagent of ${iterations} turns (one \`read_file\` each, \`stream: false\`, checkpoints off); with \`budgets.maxTokens\` every call of the subagent first reserves from the root (a local activity executing the root's \`reserveTreeBudget\` update) and reports after (\`treeSpend\`). An iteration: from one of the subagent's model requests to the next.`,
    '',
    table(
      ['budget', 'iteration p50', 'iteration p95', 'added per call (p50)'],
      [
        [modes[0], ms(none.p50), ms(none.p95), '—'],
        [modes[1], ms(reserved.p50), ms(reserved.p95), ms(reserved.p50 - none.p50)],
      ],
    ),
  ].join('\n');
  return { id: 'tree-reservation', markdown };
}
