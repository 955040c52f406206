import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { messagesQuery } from '../../common/contract';
import type { LLMResponse, Message } from '../../common/messages';
import { messagesDigest, predictedMessages } from '../../loop/predicted-messages';
import type { ModelRequest } from '../../common/model-request';

const MAX_CONVERSATIONS = 256;

/**
 * The failure type of a model call whose conversation could not be read from its run (the query
 * failed or took longer than its bound). It is the server's or a worker's trouble, never the
 * provider's: the call is asked again with the retry policy's backoff, like a lost worker, and is
 * not counted among the provider failures that end a run (src/activities/model/provider-attempts.ts).
 */
export const TRANSCRIPT_UNAVAILABLE = 'TranscriptUnavailable';

/**
 * How long one attempt waits for the run to answer. A worker that is gone, or a workflow task that
 * is stuck on one, keeps a query waiting; the attempt then fails and the next one asks again.
 * Long enough for a worker to replay a long run's history under load.
 */
const QUERY_TIMEOUT_MS = 60_000;

/**
 * The conversations this worker has sent to the model, by transcript key. A model call's input
 * then carries only the new messages. On a miss (another worker, a restart) the worker asks the
 * run itself through its `messages` query: the run is parked on this activity, so what it
 * returns is exactly the conversation the call is about.
 */
export class TranscriptCache {
  private readonly conversations = new Map<string, Message[]>();
  /** By transcript key: the messages the run will add after the last reply, when its reads all succeeded. */
  private readonly predictions = new Map<string, { after: number; messages: Message[] }>();
  hits = 0;
  misses = 0;

  constructor(private readonly queryTimeoutMs = QUERY_TIMEOUT_MS) {}

  async resolve(request: ModelRequest): Promise<Message[]> {
    const ref = request.transcript;
    if (!ref) return request.messages;
    const known = this.conversations.get(ref.key);
    const predicted = this.predictions.get(ref.key);
    this.predictions.delete(ref.key);
    // A call that starts the transcript carries all of it: nothing to read from the run.
    const before = ref.from === 0 ? [] : known?.length === ref.from ? known : undefined;
    let full: Message[];
    if (before) {
      this.hits += 1;
      full = [...before, ...request.messages];
    } else if (known && known.length === ref.total) {
      this.hits += 1; // a retry of a call this worker already resolved
      full = known;
    } else if (known && predicted && ref.predicted && known.length === predicted.after && ref.from === predicted.after + predicted.messages.length && samePrediction(ref.predicted, predicted.messages)) {
      this.hits += 1;
      full = [...known, ...predicted.messages, ...request.messages];
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

  /** After a call of `request` answered `response`: what the run will add if it takes the reply's reads as they are. */
  predict(request: ModelRequest, response: LLMResponse): void {
    const ref = request.transcript;
    if (!ref) return;
    const messages = predictedMessages(response, request.step);
    // As the run will hold them: through JSON, as the result reaches the workflow.
    if (messages) this.predictions.set(ref.key, { after: ref.total, messages: JSON.parse(JSON.stringify(messages)) as Message[] });
    while (this.predictions.size > MAX_CONVERSATIONS) this.predictions.delete(this.predictions.keys().next().value as string);
  }

  protected async fetch(total: number): Promise<Message[]> {
    const context = Context.current();
    const execution = context.info.workflowExecution;
    if (!execution) throw new Error('a transcript reference needs an activity scheduled by its workflow');
    const handle = context.client.workflow.getHandle(execution.workflowId, execution.runId);
    try {
      const messages = await context.client.withDeadline(Date.now() + this.queryTimeoutMs, () => handle.query(messagesQuery));
      return messages.slice(0, total);
    } catch (err) {
      const reason = err instanceof Error ? `${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ''}` : String(err);
      throw ApplicationFailure.retryable(`could not read the run's conversation from the run to send it to the model: ${reason}`, TRANSCRIPT_UNAVAILABLE);
    }
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

function samePrediction(said: { messages: number; digest: string }, held: readonly Message[]): boolean {
  const digest = messagesDigest(held);
  return said.messages === digest.messages && said.digest === digest.digest;
}
