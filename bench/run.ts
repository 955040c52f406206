/**
 * `npm run bench`: measures BareAgent on Temporal against a plain loop on the local dev server
 * (in memory, free ports, loopback only) with the scripted model answering at once, and writes
 * the figures to BENCHMARKS.md. Not part of `npm test`. `--help` lists the options.
 */
import { findOrBuildTemporalCli } from '../src/server/temporal-cli';
import { createContext, type BenchContext } from './context';
import { historyGrowth } from './history-growth';
import { memory } from './memory';
import { parseOptions, type SectionId } from './options';
import { overhead } from './overhead';
import { machineBlock, writeReport, type Block } from './report';
import { productBundle, startModel } from './setup';
import { sandbox } from './sandbox';
import { sqlite } from './sqlite';
import { throughput } from './throughput';
import { bundling } from './bundling';
import { eager } from './eager';
import { floor } from './floor';
import { transferPoll } from './transfer-poll';
import { tuning } from './tuning';
import { checkpoints } from './checkpoints';
import { parallelReads } from './parallel-reads';
import { sdkPatch } from './sdk-patch';
import { treeReservation } from './tree-reservation';
import { runEvents } from './run-events';
import { peers } from './peers-section';

const SECTIONS: Record<SectionId, (ctx: BenchContext) => Promise<Block>> = {
  overhead,
  throughput,
  history: historyGrowth,
  memory,
  'transfer-poll': transferPoll,
  eager,
  tuning,
  bundle: bundling,
  sqlite,
  sandbox,
  floor,
  checkpoints,
  'parallel-reads': parallelReads,
  'sdk-patch': sdkPatch,
  'tree-reservation': treeReservation,
  events: runEvents,
  peers,
};

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const command = ['npm run bench', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' ');
  const started = Date.now();
  const cli = await findOrBuildTemporalCli();
  const [model, bundle] = await Promise.all([startModel(), productBundle()]);
  const { context, close } = createContext(options, model, bundle, command);
  const blocks: Block[] = [machineBlock(cli)];
  try {
    for (const id of options.only) {
      const sectionStarted = Date.now();
      context.log(`${id}: start`);
      blocks.push(await SECTIONS[id](context));
      context.log(`${id}: done in ${((Date.now() - sectionStarted) / 1000).toFixed(0)} s`);
      writeReport(options.out, blocks);
    }
  } finally {
    await close();
    await model.close();
    bundle.dispose();
  }
  context.log(`wrote ${options.out} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
