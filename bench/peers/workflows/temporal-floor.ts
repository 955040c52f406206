/**
 * The floor of any agent on Temporal, for the peers' table: the task's loop as a bare workflow,
 * one activity a turn (the model call, and the file its reply asks for), no agent code. The
 * conversation lives in the workflow and goes whole to each call, as a plain Temporal loop writes it.
 */
import { proxyActivities } from '@temporalio/workflow';

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
  floorTurn(runId: string, messages: FloorMessage[]): Promise<FloorTurn>;
}

const { floorTurn } = proxyActivities<FloorActivities>({ startToCloseTimeout: '20 seconds' });

export async function temporalFloor(runId: string, system: string, prompt: string): Promise<string> {
  const messages: FloorMessage[] = [{ role: 'system', content: system }, { role: 'user', content: prompt }];
  for (;;) {
    const turn = await floorTurn(runId, messages);
    messages.push(turn.reply);
    if (!turn.read) return turn.reply.content ?? '';
    messages.push(turn.read);
  }
}
