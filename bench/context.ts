/** What every section gets from bench/run.ts: options, the scripted model, the bundle, a shared server. */
import type { ScriptedModelServer } from '../src/testing/scripted-model-server';
import type { BenchOptions } from './options';
import { startServer, startWorker, type BenchServer, type BenchWorker, type Bundle, type ServerOptions, type WorkerTuning } from './setup';

export interface BenchContext {
  options: BenchOptions;
  model: ScriptedModelServer;
  bundle: Bundle;
  /** The exact command line, for the report. */
  command: string;
  /** The dev server with the embedded server's flags only, started on first use and shared. */
  defaultServer(): Promise<BenchServer>;
  /** A dev server of its own (other dynamic config); stopped at the end of the bench at the latest. */
  server(options: ServerOptions): Promise<BenchServer>;
  worker(server: BenchServer, taskQueue: string, tuning?: WorkerTuning): Promise<BenchWorker>;
  log(line: string): void;
}

/**
 * A section that compares set-ups: each variant on a fresh server and worker (none inherits what
 * the previous ones left), both stopped after it; the workspace is removed at the end.
 */
export async function measureEachVariant<V>(
  ctx: BenchContext,
  variants: readonly V[],
  setup: (variant: V, i: number) => { server: ServerOptions; taskQueue: string; tuning?: WorkerTuning },
  workspace: { dispose(): void },
  measure: (variant: V, taskQueue: string, server: BenchServer) => Promise<void>,
): Promise<void> {
  try {
    for (const [i, variant] of variants.entries()) {
      const { server: serverOptions, taskQueue, tuning } = setup(variant, i);
      const server = await ctx.server(serverOptions);
      const worker = await ctx.worker(server, taskQueue, tuning);
      try {
        await measure(variant, worker.taskQueue, server);
      } finally {
        await worker.stop();
        await server.stop();
      }
    }
  } finally {
    workspace.dispose();
  }
}

export function createContext(options: BenchOptions, model: ScriptedModelServer, bundle: Bundle, command: string) {
  const servers = new Set<BenchServer>();
  let shared: Promise<BenchServer> | undefined;
  const server = async (serverOptions: ServerOptions) => {
    const started = await startServer({ persistent: options.persistent, cluster: options.cluster, ...serverOptions });
    servers.add(started);
    const stop = started.stop;
    started.stop = async () => {
      servers.delete(started);
      await stop();
    };
    return started;
  };
  const context: BenchContext = {
    options,
    model,
    bundle,
    command,
    defaultServer: () => (shared ??= server({})),
    server,
    worker: (s, taskQueue, tuning) => startWorker(s, model, { taskQueue, bundle, ...(tuning ? { tuning } : {}) }),
    log: (line) => console.error(`[bench] ${line}`),
  };
  return {
    context,
    close: async () => {
      for (const s of [...servers]) await s.stop().catch((err: Error) => console.error(`stopping a dev server: ${err.message}`));
    },
  };
}
