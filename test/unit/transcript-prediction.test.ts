import type { LLMResponse, Message } from '../../src/common/messages';
import type { ModelRequest } from '../../src/common/model-request';
import { TranscriptCache } from '../../src/activities/model/transcript-cache';
import { messagesDigest, predictedMessages } from '../../src/loop/predicted-messages';

/** A cache whose misses read a given conversation instead of querying a run. */
class FakeRun extends TranscriptCache {
  fetched = 0;
  constructor(private readonly conversation: Message[]) {
    super();
  }
  protected override async fetch(total: number): Promise<Message[]> {
    this.fetched += 1;
    return this.conversation.slice(0, total);
  }
}

const start: Message[] = [{ role: 'user', content: 'read it' }];
const request = (messages: Message[], from: number, total: number, predicted?: ModelRequest['transcript'] extends infer T ? (T extends { predicted?: infer P } ? P : never) : never): ModelRequest => ({
  messages,
  transcript: { key: 'run:1', from, total, ...(predicted ? { predicted } : {}) },
  tools: ['read_file'],
  stream: false,
  step: 1,
});
const reply = (output: string, ok = true): LLMResponse => ({
  text: '',
  toolCalls: [{ id: 'a', name: 'read_file', input: { file_path: 'x.txt' } }],
  usage: { inputTokens: 1, outputTokens: 1 },
  model: 'm',
  streamed: false,
  readAhead: [{ input: { file_path: 'x.txt', offset: 0 }, outcome: ok ? { ok: true, output } : { ok: false, errorType: 'FileNotFound', message: 'gone' } }],
});

test('the reply and its reads, as the run will hold them; none for a failed read or a reply without reads', () => {
  expect(predictedMessages(reply('1: x'), 1)).toEqual([
    { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'read_file', input: { file_path: 'x.txt' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: '1: x', is_error: false }] },
  ]);
  expect(predictedMessages(reply('gone', false), 1)).toBeUndefined();
  expect(predictedMessages({ ...reply('1: x'), readAhead: undefined }, 1)).toBeUndefined();
});

describe('a call that leaves out what its worker predicted', () => {
  const predicted = predictedMessages(reply('1: x'), 1)!;
  const whole = [...start, ...predicted];

  test('the worker that predicted them sends the whole conversation without asking the run', async () => {
    const cache = new FakeRun(whole);
    await cache.resolve(request(start, 0, 1));
    cache.predict(request(start, 0, 1), reply('1: x'));
    expect(await cache.resolve(request([], 3, 3, messagesDigest(predicted)))).toEqual(whole);
    expect(cache.fetched).toBe(0);
  });

  test('a prediction that is not what the run holds, or none, is read from the run', async () => {
    const wrong = new FakeRun(whole);
    await wrong.resolve(request(start, 0, 1));
    wrong.predict(request(start, 0, 1), reply('1: something else'));
    expect(await wrong.resolve(request([], 3, 3, messagesDigest(predicted)))).toEqual(whole);
    expect(wrong.fetched).toBe(1);
    const fresh = new FakeRun(whole);
    expect(await fresh.resolve(request([], 3, 3, messagesDigest(predicted)))).toEqual(whole);
    expect(fresh.fetched).toBe(1);
  });

  test('a request from before predictions that starts past what the worker holds is read from the run', async () => {
    const cache = new FakeRun(whole);
    await cache.resolve(request(start, 0, 1));
    cache.predict(request(start, 0, 1), reply('1: x'));
    expect(await cache.resolve(request([], 3, 3))).toEqual(whole);
    expect(cache.fetched).toBe(1);
  });
});
