/** What every section gets from bench/run.ts: options, the scripted model, the bundle, a shared server. */
import type { ScriptedModelServer } from '../test/support/scripted-model-server';
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
