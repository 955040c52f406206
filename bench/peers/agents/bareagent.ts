/**
 * BareAgent itself: the root's `agentRun` workflow on a worker built by createBareAgentWorker (as
 * `npm run worker` builds it), its default input (streaming, checkpoints on), against the same
 * Temporal dev server configuration as the embedded one. Every model call and tool call is an
 * activity (or a local activity) recorded in the workflow's history; a killed worker's run goes on
 * on the next worker from that history. The worker keeps its default identity, as a user's would:
 * with it the next worker fails the killed one's model call at once (src/worker/orphaned-attempts.ts).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { createBareAgentWorker } from '../../../src/worker/create-worker';
import type { AgentRunInput } from '../../../src/common/input';
import type { AgentRunResult } from '../../../src/common/wire';
import { PROMPT, TURNS, peerEnv } from '../task';
import { runOnTemporal } from '../temporal-peer';

const TASK_QUEUE = 'peers-bareagent';

// The root's own @temporalio packages, the ones createBareAgentWorker uses: bench/peers has its
// own copies (for the Temporal plugins), and two native runtimes in one process do not mix.
const rootRequire = createRequire(path.resolve(__dirname, '../../../package.json'));
const { Client, Connection } = rootRequire('@temporalio/client') as typeof import('@temporalio/client');
const { NativeConnection } = rootRequire('@temporalio/worker') as typeof import('@temporalio/worker');

async function main(): Promise<void> {
  const env = peerEnv();
  process.env.BAREAGENT_HOME ||= env.dataDir;
  const native = await NativeConnection.connect({ address: env.temporalAddress });
  const connection = await Connection.connect({ address: env.temporalAddress });
  const client = new Client({ connection });
  const worker = await createBareAgentWorker({
    connection: native,
    namespace: 'default',
    taskQueue: TASK_QUEUE,
    provider: { baseURL: env.modelUrl, requestTimeoutMs: 30_000 },
  });
  const running = worker.run();
  await runOnTemporal(
    { getHandle: (runId) => client.workflow.getHandle(runId), worker, running, connections: [connection, native] },
    (runId) => {
      const input: AgentRunInput = { prompt: PROMPT, model: runId, workspace: env.workspace, maxIterations: TURNS + 10 };
      return client.workflow.start('agentRun', { taskQueue: TASK_QUEUE, workflowId: runId, args: [input] });
    },
    (result) => (result as AgentRunResult).text,
  );
}

void main();
