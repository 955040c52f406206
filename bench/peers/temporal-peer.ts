/**
 * What the peers on Temporal share (BareAgent, the two Temporal plugins, the floor): each run
 * started by its id, or after a kill awaited again under the same id; its bytes are the history
 * size the server reports; the worker and the connections closed at the end. Typed by shape, as
 * BareAgent's and the floor's SDK is the root's and the plugins' is bench/peers' own copy.
 */
import { runAll } from './task';

export interface PeerWorkflowHandle {
  result(): Promise<unknown>;
  describe(): Promise<{ raw: { workflowExecutionInfo?: { historySizeBytes?: unknown } | null } }>;
}

export interface TemporalPeerParts {
  getHandle(runId: string): PeerWorkflowHandle;
  worker: { shutdown(): void };
  running: Promise<unknown>;
  connections: Array<{ close(): Promise<void> }>;
}

export async function runOnTemporal(parts: TemporalPeerParts, start: (runId: string) => Promise<PeerWorkflowHandle>, answerOf: (result: unknown) => string = (result) => result as string): Promise<void> {
  await runAll(
    async (env, runId) => {
      const handle = env.mode === 'resume' ? parts.getHandle(runId) : await start(runId);
      const answer = answerOf(await handle.result());
      const described = await handle.describe();
      return { answer, bytes: [Number(described.raw.workflowExecutionInfo?.historySizeBytes ?? NaN), 'the workflow history size the server reports (historySizeBytes)'] };
    },
    async () => {
      parts.worker.shutdown();
      await parts.running;
      for (const connection of parts.connections) await connection.close();
    },
  );
}
