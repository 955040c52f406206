import { messagesQuery } from '../../common/contract';
import { Context } from '@temporalio/activity';
import type { Message } from '../../common/messages';
import type { ModelRequest } from '../../common/model-request';

const MAX_CONVERSATIONS = 256;

/**
 * The conversations this worker has sent to the model, by transcript key. A model call's input
 * then carries only the new messages. On a miss (another worker, a restart) the worker asks the
 * run itself through its `messages` query: the run is parked on this activity, so what it
 * returns is exactly the conversation the call is about.
 */
export class TranscriptCache {
  private readonly conversations = new Map<string, Message[]>();
  hits = 0;
  misses = 0;

  async resolve(request: ModelRequest): Promise<Message[]> {
    const ref = request.transcript;
    if (!ref) return request.messages;
    const known = this.conversations.get(ref.key);
    let full: Message[];
    if (known && known.length === ref.from) {
      this.hits += 1;
      full = [...known, ...request.messages];
    } else if (known && known.length === ref.total) {
      this.hits += 1; // a retry of a call this worker already resolved
      full = known;
    } else {
      this.misses += 1;
      full = await this.fetch(ref.total);
    }
    if (full.length !== ref.total) {
      throw new Error(`transcript ${ref.key}: expected ${ref.total} messages, got ${full.length}`);
    }
    this.remember(ref.key, full);
    return full;
  }

  private async fetch(total: number): Promise<Message[]> {
    const context = Context.current();
    const execution = context.info.workflowExecution;
    if (!execution) throw new Error('a transcript reference needs an activity scheduled by its workflow');
    const handle = context.client.workflow.getHandle(execution.workflowId, execution.runId);
    const messages = await handle.query(messagesQuery);
    return messages.slice(0, total);
  }

  private remember(key: string, messages: Message[]): void {
    this.conversations.delete(key);
    this.conversations.set(key, messages);
    while (this.conversations.size > MAX_CONVERSATIONS) {
      const oldest = this.conversations.keys().next().value as string;
      this.conversations.delete(oldest);
    }
  }
}
