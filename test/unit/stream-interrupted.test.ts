import { ApplicationFailure } from '@temporalio/common';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type OpenAI from 'openai';
import type { RunEvent } from '../../src/common/events';
import { toProviderFailure } from '../../src/activities/model/providers/openai/errors';
import { connectionLost, isConnectionLoss, STREAM_INTERRUPTED } from '../../src/activities/model/stream-interrupted';
import { collectStream } from '../../src/activities/model/providers/openai/stream-response';

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;

/** undici's error for a socket closed under a streamed body. */
function terminated(): TypeError {
  const socket = Object.assign(new Error('other side closed'), { name: 'SocketError', code: 'UND_ERR_SOCKET' });
  return new TypeError('terminated', { cause: socket });
}

describe('isConnectionLoss', () => {
  test.each<[string, unknown, boolean]>([
    ["undici's TypeError: terminated", terminated(), true],
    ['TypeError: fetch failed', new TypeError('fetch failed'), true],
    ['a reset socket', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), true],
    ['a network code deep in the cause chain', new Error('outer', { cause: new Error('mid', { cause: { code: 'EPIPE' } }) }), true],
    ['an error from another realm (a plain object)', { name: 'TypeError', message: 'terminated' }, true],
    ["the client's lost connection", new APIConnectionError({ message: 'Connection error.' }), true],
    ["the client's timeout", new APIConnectionTimeoutError(), true],
    ['an abort by us', new APIUserAbortError(), false],
    ['a provider error event', new APIError(undefined, { message: 'overloaded' }, 'overloaded', undefined), false],
    ['an HTTP 500', APIError.generate(500, { error: { message: 'x' } }, 'x', new Headers()), false],
    ['another TypeError', new TypeError('cannot read properties of undefined'), false],
    ['a malformed chunk', new SyntaxError('Unexpected token'), false],
    ['a thrown string', 'terminated', false],
  ])('%s → %s', (_what, err, expected) => {
    expect(isConnectionLoss(err, (e) => e instanceof APIConnectionError)).toBe(expected);
  });
});

test('a lost connection is a retryable StreamInterrupted naming the chunks and the cause, and toProviderFailure keeps it', () => {
  const failure = connectionLost(3, terminated());
  expect(failure).toBeInstanceOf(ApplicationFailure);
  expect(failure.type).toBe(STREAM_INTERRUPTED);
  expect(failure.nonRetryable).toBe(false);
  expect(failure.message).toBe('connection lost mid-stream after 3 chunks: TypeError: terminated');
  expect(toProviderFailure(failure)).toBe(failure);
  expect(connectionLost(1, { name: 'TypeError', message: 'terminated' }).message).toBe(
    'connection lost mid-stream after 1 chunk: TypeError: terminated',
  );
});

describe('collectStream', () => {
  const base = { id: 'c', object: 'chat.completion.chunk' as const, created: 0, model: 'm' };
  const text = (content: string): Chunk => ({ ...base, choices: [{ index: 0, delta: { content }, finish_reason: null }] });
  const toolStart: Chunk = {
    ...base,
    choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'glob', arguments: '{}' } }] }, finish_reason: null }],
  };
  const finish = (reason: 'stop' | 'tool_calls'): Chunk => ({ ...base, choices: [{ index: 0, delta: {}, finish_reason: reason }] });

  async function* from(chunks: Chunk[]): AsyncIterable<Chunk> {
    for (const chunk of chunks) yield chunk;
  }

  async function collect(chunks: Chunk[]) {
    const events: RunEvent[] = [];
    const outcome = await collectStream(from(chunks), (delta) => events.push({ type: 'text', step: 1, attempt: 2, delta }), () => undefined).then(
      (response) => ({ response, error: undefined }),
      (error: unknown) => ({ response: undefined, error: error as ApplicationFailure }),
    );
    return { ...outcome, events };
  }

  test('a whole stream is the answer', async () => {
    const { response, events } = await collect([text('Hel'), text('lo'), finish('stop')]);
    expect(response).toMatchObject({ text: 'Hello', stopReason: 'end', toolCalls: [] });
    expect(events).toEqual([
      { type: 'text', step: 1, attempt: 2, delta: 'Hel' },
      { type: 'text', step: 1, attempt: 2, delta: 'lo' },
    ]);
  });

  test('a stream with no event is a retryable StreamInterrupted', async () => {
    const { error, events } = await collect([]);
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect(error).toMatchObject({ type: STREAM_INTERRUPTED, nonRetryable: false, message: 'Streaming provider did not return a response' });
    expect(events).toEqual([]);
  });

  test('a stream that ends without a finish reason is a retryable StreamInterrupted, not a partial answer', async () => {
    const { error } = await collect([text('Half '), text('an answer')]);
    expect(error).toMatchObject({
      type: STREAM_INTERRUPTED,
      nonRetryable: false,
      message: 'stream ended without a finish reason after 2 chunks',
    });
  });

  test('a tool call still open when the stream ends without a finish reason is not published', async () => {
    const { error, events } = await collect([text('Let me look.'), toolStart]);
    expect(error).toMatchObject({ type: STREAM_INTERRUPTED });
    expect(events.filter((e) => e.type === 'tool_call')).toEqual([]);
  });

  test('a turn without text publishes nothing: its tool calls are returned for the workflow to show', async () => {
    const { response, events } = await collect([toolStart, finish('tool_calls')]);
    expect(response?.toolCalls).toEqual([{ id: 'call_1', name: 'glob', input: {} }]);
    expect(response?.stopReason).toBe('tool_calls');
    expect(events).toEqual([]);
  });
});
