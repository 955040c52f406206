/**
 * The floor of any agent on Temporal, for the peers' table: the task's loop as a bare workflow,
 * one activity a turn (the model call, and the file its reply asks for), no agent code. Each call
 * carries only the messages its worker has not seen; a worker that has not (a restart) asks the
 * workflow for them by query. That is the least a Temporal-based agent records a turn.
 */
import { defineQuery, proxyActivities, setHandler } from '@temporalio/workflow';

export interface FloorMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

export interface FloorTurn {
  reply: FloorMessage;
  /** The reply's read_file result, read in the same activity. */
  read?: FloorMessage;
}

export interface FloorActivities {
  /** `messages`: those after the first `from`, which the worker holds or asks the workflow for. */
  floorTurn(runId: string, messages: FloorMessage[], from: number): Promise<FloorTurn>;
}

const { floorTurn } = proxyActivities<FloorActivities>({ startToCloseTimeout: '20 seconds' });

export const floorMessages = defineQuery<FloorMessage[]>('floorMessages');

export async function temporalFloor(runId: string, system: string, prompt: string): Promise<string> {
  const messages: FloorMessage[] = [{ role: 'system', content: system }, { role: 'user', content: prompt }];
  setHandler(floorMessages, () => messages);
  let sent = 0;
  for (;;) {
    const turn = await floorTurn(runId, messages.slice(sent), sent);
    messages.push(turn.reply);
    if (!turn.read) return turn.reply.content ?? '';
    messages.push(turn.read);
    sent = messages.length;
  }
}
