import { workflowInfo } from '@temporalio/workflow';
import type { LLMResponse, Message } from '../common/messages';
import type { ModelRequest } from '../common/model-request';
import { leftOutDigest, predictedMessages } from '../loop/predicted-messages';

/**
 * Only what the worker has not seen yet goes into the activity's input, so each model call adds
 * its new messages to the history instead of the whole conversation. A rewritten history (a new
 * array: compaction, a notification inserted) starts a new transcript key and is sent whole.
 * After a reply whose reads all ran ahead, its worker predicts the two messages the run adds (the
 * reply, the reads' results); when the run's own messages are exactly those, the next call leaves
 * them out and says so (`predicted`), and a read's output is in the history once instead of twice.
 */
export class TranscriptSender {
  private sent: { array: Message[] | undefined; count: number; epoch: number } = { array: undefined, count: 0, epoch: 0 };
  /** What the worker of the last call predicted the run adds next (src/loop/predicted-messages.ts). */
  private predicted: { array: Message[]; at: number; messages: Message[] } | undefined;

  /** `history()` is the run's conversation now; anything else (a compaction request) is sent whole. */
  constructor(private readonly history: () => Message[]) {}

  requestFor(messages: Message[]): Pick<ModelRequest, 'messages' | 'transcript'> {
    if (messages !== this.history()) return { messages };
    if (this.sent.array !== messages) this.sent = { array: messages, count: 0, epoch: this.sent.epoch + 1 };
    const predicted = this.predicted;
    this.predicted = undefined;
    const sent = this.sent.count;
    const left = predicted && predicted.array === messages && predicted.at === sent ? leftOutDigest(messages.slice(sent, sent + predicted.messages.length), predicted.messages) : undefined;
    const from = sent + (left?.messages ?? 0);
    this.sent.count = messages.length;
    return {
      messages: messages.slice(from),
      transcript: { key: `${workflowInfo().runId}:${this.sent.epoch}`, from, total: messages.length, ...(left ? { predicted: left } : {}) },
    };
  }

  /** The reply of the call `requestFor(messages)` was just sent for, as recorded; `step` as the request said. */
  replied(messages: Message[], response: LLMResponse, step: number): void {
    const predicted = messages === this.sent.array && this.sent.count === messages.length ? predictedMessages(response, step) : undefined;
    this.predicted = predicted ? { array: messages, at: messages.length, messages: predicted } : undefined;
  }
}
