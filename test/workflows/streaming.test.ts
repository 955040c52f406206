import { WorkflowFailedError } from '@temporalio/client';
import { type ApplicationFailure } from '@temporalio/common';
import { collectEvents, streamedText } from '../support/events';
import { Harness, openaiWireOnly, TEST_WIRE } from '../support/harness';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

async function runWithEvents(scenario: string, extra: Record<string, unknown> = {}) {
  const handle = await h.start({ prompt: 'stream please', model: scenario, workspace: h.workspace({ 'a.txt': 'alpha\n' }), ...extra });
  const events = collectEvents(h.client, handle.workflowId);
  const outcome = await handle.result().then(
    (result) => ({ result, error: undefined }),
    (error: unknown) => ({ result: undefined, error }),
  );
  return { handle, events: await events, ...outcome };
}

test('text reaches the stream as it arrives, a tool call ends the text, and nothing is shown twice', async () => {
  h.model.setScenario('streamed', [
    { chunks: ['Reading ', 'the file', ' now.'], toolCalls: [{ id: 'call_r', name: 'read_file', arguments: { file_path: 'a.txt' } }] },
    { chunks: ['It says ', 'alpha.'] },
  ]);
  const { result, events } = await runWithEvents('streamed');
  expect(result).toMatchObject({ text: 'It says alpha.', iterations: 2 });
  const step1 = events.filter((e) => 'step' in e && e.step === 1);
  // The first text goes at once; what follows within the publish interval goes as one piece.
  expect(step1.filter((e) => e.type === 'text').map((e) => (e as { delta: string }).delta)).toEqual(['Reading ', 'the file now.']);
  const toolCallAt = step1.findIndex((e) => e.type === 'tool_call');
  const lastTextAt = step1.map((e) => e.type).lastIndexOf('text');
  expect(toolCallAt).toBeGreaterThan(lastTextAt);
  expect(events.filter((e) => e.type === 'tool_call')).toEqual([
    { type: 'tool_call', step: 1, id: 'call_r', name: 'read_file', input: { file_path: 'a.txt' } },
  ]);
  // Streamed text is not published again after the response is appended.
  expect(streamedText(events)).toBe('Reading the file now.It says alpha.');
  expect(h.model.requestsFor('streamed')[0]?.body.stream).toBe(true);
});

test('a long streamed answer reaches the run in a few larger publishes, each a signal, with the whole text', async () => {
  const chunks = Array.from({ length: 100 }, (_, i) => `w${i} `);
  h.model.setScenario('paced', [{ chunks, chunkDelayMs: 10 }]);
  const { handle, result, events } = await runWithEvents('paced');
  expect(result).toMatchObject({ text: chunks.join('') });
  expect(streamedText(events)).toBe(chunks.join(''));
  // About a second of text: the first piece at once, then one publish every 200 ms, not one per token.
  const texts = events.filter((e) => e.type === 'text');
  expect(texts[0]).toMatchObject({ delta: 'w0 ' });
  expect(texts.length).toBeLessThanOrEqual(10);
  const signals = ((await handle.fetchHistory()).events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes);
  expect(signals.length).toBeLessThanOrEqual(10);
});

// The two refusals of a stream below are OpenAI-compatible servers' (a 400 naming streaming,
// llama.cpp's 500): the fallback they take is the activity's, the same for every adapter.
openaiWireOnly('a provider that cannot stream, before any event, falls back once to the non-streaming call with a status event', async () => {
  h.model.setScenario('no-stream', [{ text: 'Plain answer.', streamUnsupported: true }, { text: 'Plain answer.' }]);
  const { result, events } = await runWithEvents('no-stream');
  expect(result).toMatchObject({ text: 'Plain answer.' });
  expect(events).toContainEqual({
    type: 'status',
    step: 1,
    message: 'Streaming unavailable, falling back to non-stream mode (BadRequestError).',
  });
  expect(h.model.requestsFor('no-stream').map((r) => Boolean(r.body.stream))).toEqual([true, false]);
  expect(streamedText(events)).toBe('Plain answer.');
});

openaiWireOnly("llama.cpp's streaming tool-call error (a 500 `Invalid diff`) is asked again once without streaming, with a status event", async () => {
  const call = { id: 'call_g', name: 'glob', arguments: { pattern: '*.txt' } };
  h.model.setScenario('invalid-diff', [{ toolCalls: [call], streamError: 'Invalid diff: now finding less tool calls!' }, { toolCalls: [call] }, { text: 'Found a.txt.' }]);
  const { result, events } = await runWithEvents('invalid-diff');
  expect(result).toMatchObject({ text: 'Found a.txt.', iterations: 2 });
  expect(events).toContainEqual({ type: 'status', step: 1, message: 'Streaming unavailable, falling back to non-stream mode (InternalServerError).' });
  // One provider request per attempt: the error is not retried as a stream, and no provider failure is counted.
  expect(h.model.requestsFor('invalid-diff').map((r) => Boolean(r.body.stream))).toEqual([true, false, true]);
});

function llmCallError(error: unknown): ApplicationFailure {
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const failure = (error as WorkflowFailedError).cause as ApplicationFailure;
  expect(failure.type).toBe('LLMCallError');
  return failure;
}

test('a connection cut mid-answer is retried as a new stream: the run ends with the second answer, followers drop the first', async () => {
  h.model.setScenario('cut-once', (_body: unknown, index: number) =>
    index === 0
      ? { chunks: ['Half an ', 'answer', ' and more'], breakAfterChunks: 2 }
      : { chunks: ['The whole ', 'answer.'] },
  );
  const { result, events } = await runWithEvents('cut-once');
  expect(result).toMatchObject({ text: 'The whole answer.' });
  expect(h.model.requestsFor('cut-once').map((r) => Boolean(r.body.stream))).toEqual([true, true]);
  const restart = events.findIndex((e) => e.type === 'attempt_restart');
  expect(events[restart]).toEqual({ type: 'attempt_restart', step: 1, attempt: 2 });
  const text = (attempt: number) => events.filter((e) => e.type === 'text' && e.attempt === attempt).map((e) => (e as { delta: string }).delta);
  expect(text(1)).toEqual(['Half an ', 'answer']);
  expect(text(2)).toEqual(['The whole ', 'answer.']);
  expect(events.slice(0, restart).some((e) => e.type === 'text' && e.attempt === 2)).toBe(false);
  expect(streamedText(events)).toBe('The whole answer.');
});

test('a stream that ends without a finish reason is retried, not taken as the answer', async () => {
  h.model.setScenario('no-finish', [{ chunks: ['Cut ', 'short'], noFinishReason: true }, { chunks: ['Complete ', 'answer.'] }]);
  const { result, events } = await runWithEvents('no-finish');
  expect(result).toMatchObject({ text: 'Complete answer.' });
  expect(h.model.requestsFor('no-finish').map((r) => Boolean(r.body.stream))).toEqual([true, true]);
  expect(events).toContainEqual({ type: 'attempt_restart', step: 1, attempt: 2 });
  expect(streamedText(events)).toBe('Complete answer.');
});

test('a stream with no event at all, every attempt, fails the run as LLMCallError after 4 streaming attempts', async () => {
  h.model.setScenario('silent', () => ({ noEvents: true }));
  const { error } = await runWithEvents('silent');
  expect(llmCallError(error).message).toBe('LLM call failed: StreamInterrupted: Streaming provider did not return a response');
  expect(h.model.requestsFor('silent').map((r) => Boolean(r.body.stream))).toEqual([true, true, true, true]);
});

test('a connection cut on every attempt fails the run as LLMCallError naming the lost connection', async () => {
  h.model.setScenario('always-cut', () => ({ chunks: ['Half an ', 'answer', ' and more'], breakAfterChunks: 2 }));
  const { error, events } = await runWithEvents('always-cut');
  // The events the adapter took before the cut: Anthropic's stream opens with message_start and content_block_start.
  const chunks = TEST_WIRE === 'anthropic' ? 4 : 2;
  expect(llmCallError(error).message).toBe(`LLM call failed: StreamInterrupted: connection lost mid-stream after ${chunks} chunks: TypeError: terminated`);
  expect(h.model.requestsFor('always-cut')).toHaveLength(4);
  expect(events.filter((e) => e.type === 'attempt_restart').map((e) => e.attempt)).toEqual([2, 3, 4]);
});

test('stream: false calls the model without streaming and still publishes the text once', async () => {
  h.model.setScenario('plain', [{ text: 'Whole answer.' }]);
  const { events } = await runWithEvents('plain', { stream: false });
  expect(h.model.requestsFor('plain')[0]?.body.stream).toBeFalsy();
  expect(events.filter((e) => e.type === 'text')).toEqual([{ type: 'text', step: 1, attempt: 1, delta: 'Whole answer.' }]);
});
