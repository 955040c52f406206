/**
 * The one task every peer runs: TURNS turns, each a model call that asks for one `read_file` of a
 * 4 KB file (a different file each turn), then a final answer. What a peer's child process gets
 * from the orchestrator (run.ts) comes through the environment, described here once.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export * from './constants';

/** The tool every peer registers (BareAgent uses its own read_file, which takes the same argument). */
export function readWorkspaceFile(workspace: string, filePath: string): string {
  const resolved = path.resolve(workspace, filePath);
  if (!resolved.startsWith(path.resolve(workspace) + path.sep)) throw new Error(`${filePath} is outside the workspace`);
  return readFileSync(resolved, 'utf8');
}

export interface PeerEnv {
  /** Run ids to run one after another (the model name of each run is its id). */
  runs: string[];
  /** `start` a run, or `resume` it after the process running it was killed. */
  mode: 'start' | 'resume';
  modelUrl: string;
  workspace: string;
  /** A directory of the peer's own (its SQLite file, its world's data...). */
  dataDir: string;
  temporalAddress: string;
  restateIngress: string;
  restateAdmin: string;
  restateEndpointPort: number;
  postgresUrl: string;
}

export function peerEnv(): PeerEnv {
  const get = (name: string, fallback = ''): string => process.env[name] ?? fallback;
  return {
    runs: get('PEER_RUNS').split(',').filter(Boolean),
    mode: get('PEER_MODE', 'start') === 'resume' ? 'resume' : 'start',
    modelUrl: get('PEER_MODEL_URL'),
    workspace: get('PEER_WORKSPACE'),
    dataDir: get('PEER_DATA_DIR'),
    temporalAddress: get('PEER_TEMPORAL_ADDRESS'),
    restateIngress: get('PEER_RESTATE_INGRESS'),
    restateAdmin: get('PEER_RESTATE_ADMIN'),
    restateEndpointPort: Number(get('PEER_RESTATE_ENDPOINT_PORT', '0')),
    postgresUrl: get('PEER_POSTGRES_URL'),
  };
}

/** The child's report lines on stdout, read by run.ts. */
export function reportDone(runId: string, answer: string): void {
  process.stdout.write(`PEER DONE ${runId} ${JSON.stringify(answer)}\n`);
}

/** Bytes the peer's durable store holds for the run (`how` says what was counted). */
export function reportBytes(runId: string, bytes: number, how: string): void {
  process.stdout.write(`PEER BYTES ${runId} ${bytes} ${JSON.stringify(how)}\n`);
}

/** Runs each run of the environment in turn, reports it, and exits (servers stay up). */
export async function runAll(run: (env: PeerEnv, runId: string) => Promise<{ answer: string; bytes?: [number, string] }>, close?: () => Promise<void>): Promise<void> {
  const env = peerEnv();
  try {
    for (const runId of env.runs) {
      const { answer, bytes } = await run(env, runId);
      reportDone(runId, answer);
      if (bytes) reportBytes(runId, bytes[0], bytes[1]);
    }
    await close?.();
    process.exit(0);
  } catch (err) {
    console.error(err);
    process.exit(1);
  }
}
