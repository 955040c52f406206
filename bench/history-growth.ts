/**
 * 3. History growth: events and bytes of history per run at 10, 50 and 200 iterations with 4 KB
 * tool outputs, with and without compaction and continue-as-new (the runs of a chain summed).
 * Everything is read from the server (describe, fetched history), not from the workflow's code:
 * re-run it after a workflow change (e.g. model-call inputs carrying only the new messages) to
 * get the after figures.
 */
import type { AgentRunInput } from '../src/common/input';
import { forgetRequests, startScripted } from './agent-runs';
import type { BenchContext } from './context';
import { makeWorkspace } from './conversation';
import { historyChain, KINDS, type RunHistory } from './history';
import { NoiseMeter, describeNoise } from './noise';
import { stamp, table, type Block } from './report';
import type { BenchServer, DynamicConfig } from './setup';
import { bytes, ratio } from './stats';

export const FLAT_TARGET = 1.1;
const TOOL_OUTPUT_BYTES = 4096;

/** No size or count limit stops or splits a run (the dev server's defaults would: 4 MiB suggests continue-as-new, 50 MiB terminates). */
const NO_LIMITS: DynamicConfig = {
  'limit.historySize.suggestContinueAsNew': 1_000_000_000,
  'limit.historyCount.suggestContinueAsNew': 1_000_000,
  'limit.historySize.warn': 1_000_000_000,
  'limit.historySize.error': 2_000_000_000,
  'limit.historyCount.warn': 1_000_000,
  'limit.historyCount.error': 1_000_000,
};

interface Variant {
  name: string;
  server: 'default' | 'no-limits' | 'continue-as-new';
  input: (ctx: BenchContext) => Partial<AgentRunInput>;
}

const NO_COMPACTION = { compaction: { thresholdTokens: 100_000_000 } };
const compaction = (ctx: BenchContext) => ({ compaction: { thresholdTokens: ctx.options.compactionThreshold } });

const VARIANTS: Variant[] = [
  { name: 'defaults (compaction at 50,000 tokens; continue-as-new when the server suggests it, 4 MiB)', server: 'default', input: () => ({}) },
  { name: 'neither (no compaction, no continue-as-new)', server: 'no-limits', input: () => NO_COMPACTION },
  { name: 'compaction only', server: 'no-limits', input: compaction },
  { name: 'continue-as-new only', server: 'continue-as-new', input: () => NO_COMPACTION },
  { name: 'compaction and continue-as-new', server: 'continue-as-new', input: compaction },
];

interface Measured {
  variant: Variant;
  iterations: number;
  chain: RunHistory[];
}

export async function historyGrowth(ctx: BenchContext): Promise<Block> {
  const { historySizes, continueAsNewEvents, compactionThreshold } = ctx.options;
  const meter = new NoiseMeter();
  const maxIterations = Math.max(...historySizes);
  const workspace = makeWorkspace(maxIterations, TOOL_OUTPUT_BYTES);
  const servers: Record<Variant['server'], BenchServer> = {
    default: await ctx.defaultServer(),
    'no-limits': await ctx.server({ dynamicConfig: NO_LIMITS }),
    'continue-as-new': await ctx.server({ dynamicConfig: { ...NO_LIMITS, 'limit.historyCount.suggestContinueAsNew': continueAsNewEvents } }),
  };
  const measured: Measured[] = [];
  try {
    for (const variant of VARIANTS) {
      const server = servers[variant.server];
      const worker = await ctx.worker(server, `bench-history-${variant.server}`);
      try {
        ctx.log(`history: ${variant.name}: ${historySizes.join(', ')} iterations`);
        const started = await Promise.all(
          historySizes.map((iterations) =>
            startScripted(server, ctx.model, { iterations, workspace, taskQueue: worker.taskQueue, input: variant.input(ctx), prefix: 'history' }),
          ),
        );
        for (const [i, run] of started.entries()) {
          await run.handle.result();
          measured.push({ variant, iterations: historySizes[i]!, chain: await historyChain(server.client, run.handle.workflowId, run.handle.firstExecutionRunId) });
        }
        forgetRequests(ctx.model);
      } finally {
        await worker.stop();
      }
    }
  } finally {
    await servers['no-limits'].stop();
    await servers['continue-as-new'].stop();
    workspace.dispose();
  }
  const noise = meter.stop();
  return {
    id: 'history',
    markdown: render(ctx, measured, { workspaceOutput: workspace.outputChars, continueAsNewEvents, compactionThreshold, noise: describeNoise(noise) }),
  };
}

/** What continue-as-new hands to the next run, field by field (mean over the hand-overs of the longest runs). */
function carriedTable(measured: Measured[]): string[] {
  const rows = measured
    .map(({ variant, chain }) => ({ variant, carried: chain.flatMap((r) => (r.carried ? [r.carried] : [])) }))
    .filter((m) => m.carried.length > 0);
  if (rows.length === 0) return [];
  const fields = [...new Set(rows.flatMap((r) => r.carried.flatMap((c) => Object.keys(c))))].sort();
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  return [
    '',
    'The state each continue-as-new carries (in the new run\'s input, written twice: the closing event and the next run\'s start), JSON characters per field, mean over the hand-overs:',
    '',
    table(
      ['variant', 'hand-overs', ...fields],
      rows.map(({ variant, carried }) => [variant.name, carried.length, ...fields.map((f) => bytes(mean(carried.map((c) => c[f] ?? 0))))]),
    ),
  ];
}

const total = (chain: RunHistory[], pick: (run: RunHistory) => number) => chain.reduce((sum, run) => sum + pick(run), 0);

function render(
  ctx: BenchContext,
  measured: Measured[],
  facts: { workspaceOutput: number; continueAsNewEvents: number; compactionThreshold: number; noise: string },
): string {
  const rows = measured.map(({ variant, iterations, chain }) => {
    const sum = total(chain, (r) => r.bytes);
    const modelInputs = total(chain, (r) => r.byKind['model-call inputs'] ?? 0);
    const encoded = total(chain, (r) => KINDS.reduce((s, k) => s + (r.byKind[k] ?? 0), 0));
    return [
      variant.name,
      iterations,
      chain.length,
      total(chain, (r) => r.events),
      bytes(sum),
      bytes(Math.max(...chain.map((r) => r.bytes))),
      bytes(sum / iterations),
      `${Math.round((modelInputs / Math.max(1, encoded)) * 100)}%`,
      `${total(chain, (r) => r.wholeTranscriptCalls)} (${bytes(total(chain, (r) => r.wholeTranscriptBytes))})`,
    ];
  });
  const [small, large] = [50, 200];
  const flatness = VARIANTS.map((variant) => {
    const at = (n: number) => measured.find((m) => m.variant === variant && m.iterations === n);
    const perIteration = (m: Measured | undefined) => (m ? total(m.chain, (r) => r.bytes) / m.iterations : NaN);
    const r = perIteration(at(large)) / perIteration(at(small));
    const verdict = !Number.isFinite(r) ? 'not measured' : r <= FLAT_TARGET ? 'flat: reached' : `grows: missed by ${ratio(r - FLAT_TARGET)}`;
    return [variant.name, bytes(perIteration(at(small))), bytes(perIteration(at(large))), ratio(r), verdict];
  });
  const last = measured.filter((m) => m.iterations === Math.max(...measured.map((x) => x.iterations)));
  const kinds = last.map(({ variant, chain }) => {
    const encoded = total(chain, (r) => KINDS.reduce((s, k) => s + (r.byKind[k] ?? 0), 0));
    return [variant.name, ...KINDS.map((k) => `${Math.round(((total(chain, (r) => r.byKind[k] ?? 0)) / Math.max(1, encoded)) * 100)}%`)];
  });
  return [
    '## 3. History growth',
    '',
    stamp(ctx.command),
    '',
    `Each iteration reads a different 4 KB file (a ${facts.workspaceOutput}-character tool output); default input otherwise (\`stream: true\`). ` +
      `Compaction: \`compaction: { thresholdTokens: ${facts.compactionThreshold} }\` (off: 100,000,000). Continue-as-new: a dev server with ` +
      `\`limit.historyCount.suggestContinueAsNew=${facts.continueAsNewEvents}\`; "neither" and "compaction only" run on a server whose history limits are raised so that nothing splits or stops a run. ` +
      'Bytes are the server\'s `historySizeBytes`, summed over the runs of a continue-as-new chain.',
    '',
    table(['variant', 'iterations', 'runs', 'events', 'history bytes', 'largest run', 'bytes/iteration', 'model-call inputs', 'whole-transcript model calls'], rows),
    '',
    '"Model-call inputs" is their share of the bytes; a "whole-transcript model call" carries the entire conversation (the first call of a run, and the first after each rewrite: compaction, continue-as-new) instead of only the new messages.',
    '',
    `**Target: history bytes per iteration from ${small} to ${large} iterations at most ${FLAT_TARGET}× apart.**`,
    '',
    table(['variant', `bytes/iteration at ${small}`, `at ${large}`, 'ratio', 'verdict'], flatness),
    '',
    `Where the bytes go at ${Math.max(...measured.map((x) => x.iterations))} iterations (share of the encoded events):`,
    '',
    table(['variant', ...KINDS], kinds),
    ...carriedTable(last),
    '',
    `Noise: ${facts.noise} (sizes do not depend on it).`,
  ].join('\n');
}
