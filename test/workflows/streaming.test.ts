import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { collectEvents, streamedText } from '../support/events';
import { Harness } from '../support/harness';

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

test('text deltas reach the stream as they arrive, a tool call ends the text, and nothing is shown twice', async () => {
  h.model.setScenario('streamed', [
    { chunks: ['Reading ', 'the file', ' now.'], toolCalls: [{ id: 'call_r', name: 'read_file', arguments: { file_path: 'a.txt' } }] },
    { chunks: ['It says ', 'alpha.'] },
  ]);
  const { result, events } = await runWithEvents('streamed');
  expect(result).toMatchObject({ text: 'It says alpha.', iterations: 2 });
  const step1 = events.filter((e) => 'step' in e && e.step === 1);
  expect(step1.filter((e) => e.type === 'text').map((e) => (e as { delta: string }).delta)).toEqual(['Reading ', 'the file', ' now.']);
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

test('a provider that cannot stream, before any event, falls back to the non-streaming call with a status event', async () => {
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

test('a break after partial output is an LLMCallError, not a fallback and not a retry', async () => {
  h.model.setScenario('breaks', [{ chunks: ['Half an ', 'answer', ' and more'], breakAfterChunks: 2 }]);
  const { error } = await runWithEvents('breaks');
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const failure = (error as WorkflowFailedError).cause as ApplicationFailure;
  expect(failure.type).toBe('LLMCallError');
  expect(failure.message).toMatch(/^LLM call failed: \w+: stream broke after partial output: /);
  expect(h.model.requestsFor('breaks')).toHaveLength(1);
});

test('stream: false calls the model without streaming and still publishes the text once', async () => {
  h.model.setScenario('plain', [{ text: 'Whole answer.' }]);
  const { events } = await runWithEvents('plain', { stream: false });
  expect(h.model.requestsFor('plain')[0]?.body.stream).toBeFalsy();
  expect(events.filter((e) => e.type === 'text')).toEqual([{ type: 'text', step: 1, attempt: 1, delta: 'Whole answer.' }]);
});
