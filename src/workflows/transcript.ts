import { workflowInfo } from '@temporalio/workflow';
import type { Message } from '../common/messages';
import type { ModelRequest } from '../common/model-request';

/**
 * Only what the worker has not seen yet goes into the activity's input, so each model call adds
 * its new messages to the history instead of the whole conversation. A rewritten history (a new
 * array: compaction, a notification inserted) starts a new transcript key and is sent whole.
 */
export class TranscriptSender {
  private sent: { array: Message[] | undefined; count: number; epoch: number } = { array: undefined, count: 0, epoch: 0 };

  /** `history()` is the run's conversation now; anything else (a compaction request) is sent whole. */
  constructor(private readonly history: () => Message[]) {}

  requestFor(messages: Message[]): Pick<ModelRequest, 'messages' | 'transcript'> {
    if (messages !== this.history()) return { messages };
    if (this.sent.array !== messages) this.sent = { array: messages, count: 0, epoch: this.sent.epoch + 1 };
    const from = this.sent.count;
    this.sent.count = messages.length;
    return {
      messages: messages.slice(from),
      transcript: { key: `${workflowInfo().runId}:${this.sent.epoch}`, from, total: messages.length },
    };
  }
}
