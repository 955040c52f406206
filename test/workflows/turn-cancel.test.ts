import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Harness } from '../support/harness';
import { pendingRequest, waitFor } from '../support/wait-for';
import { cancelTurnSignal, eventsQuery, messagesQuery, statusQuery, stepsQuery, userMessageSignal } from '../../src/common/contract';
import type { Message } from '../../src/common/messages';
import { CANCELLED_TOOL_RESULT, TURN_CANCELLED_NOTE } from '../../src/loop/cancelled-turn';
import { cancelTurn } from '../../src/public/client';
import { withoutRunContext } from '../support/prompt-sent';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

type Handle = Awaited<ReturnType<Harness['start']>>;
const phaseIs = (handle: Handle, phase: string) => waitFor(async () => ((await handle.query(statusQuery)).phase === phase ? true : undefined), `phase ${phase}`);
const reasons = async (handle: Handle) => (await handle.query(stepsQuery)).map((step) => step.reason);

/** Every tool call of every reply has its result in the next message: what a provider requires of the next call. */
function expectEveryCallAnswered(messages: Message[]): void {
  messages.forEach((message, i) => {
    if (message.role !== 'assistant' || typeof message.content === 'string') return;
    const calls = message.content.filter((block) => block.type === 'tool_use').map((block) => (block as { id: string }).id);
    const next = messages[i + 1]?.content;
    const answered = Array.isArray(next) ? next.filter((block) => block.type === 'tool_result').map((block) => (block as { tool_use_id: string }).tool_use_id) : [];
    expect(answered).toEqual(calls);
  });
}

test('a turn cancelled mid model call ends with turn_cancelled; the run takes the next message and answers it', async () => {
  h.model.setScenario('cancel-model', [{ hang: true }, { text: 'Answer to the second question.' }]);
  const handle = await h.start({ prompt: 'first question', model: 'cancel-model', workspace: h.workspace(), permissionMode: 'auto', idleTimeout: '1m' });
  await phaseIs(handle, 'calling_model');
  await waitFor(async () => (h.model.requestsFor('cancel-model').length === 1 ? true : undefined), 'the model call to be under way');
  // Through the client entry point's helper, as an embedding app sends it.
  const sent = Date.now();
  await cancelTurn(h.client, handle.workflowId, 'pressed Esc');
  await phaseIs(handle, 'idle');
  const cancelled = (await handle.query(stepsQuery)).find((step) => step.reason === 'turn_cancelled');
  expect(cancelled?.detail).toBe('pressed Esc; open for follow-ups for 1m');
  expect((await handle.describe()).status.name).toBe('RUNNING');
  // The hung provider request was aborted: the cancelled activity ended, it does not wait for an answer nobody reads.
  await waitFor(async () => ((await handle.describe()).raw.pendingActivities?.length ? undefined : true), 'the model activity to end');
  console.log(`turn cancel mid model call: provider request aborted, activity ended ${Date.now() - sent} ms after the signal`);

  await handle.signal(userMessageSignal, { text: 'second question' });
  await waitFor(async () => ((await reasons(handle)).filter((r) => r === 'idle').length === 1 ? true : undefined), 'the answer to the follow-up');
  const second = h.model.requestsFor('cancel-model')[1]?.body as { messages: Array<{ role: string; content: unknown }> };
  expect(second.messages.filter((m) => m.role !== 'system').map((m) => (typeof m.content === 'string' ? withoutRunContext(m.content) : m.content))).toEqual(['first question', TURN_CANCELLED_NOTE, 'second question']);
  const messages = await handle.query(messagesQuery);
  expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'Answer to the second question.' }] });
  await handle.terminate();
});

test('a turn cancelled mid tool round keeps the finished results, kills the command, and answers the rest as cancelled', async () => {
  h.model.setScenario('cancel-tool', [
    {
      toolCalls: [
        { id: 'first', name: 'bash', arguments: { command: 'echo ran > first.txt && echo first done' } },
        { id: 'slow', name: 'bash', arguments: { command: 'sleep 30 && echo late > late.txt' } },
        { id: 'never', name: 'bash', arguments: { command: 'echo never > never.txt' } },
      ],
    },
    { text: 'Stopped, as you asked.' },
  ]);
  const workspace = h.workspace();
  const handle = await h.start({ prompt: 'do three things', model: 'cancel-tool', workspace, permissionMode: 'auto', idleTimeout: '1m' });
  await waitFor(async () => ((await handle.query(eventsQuery, 0)).some(({ event }) => event.type === 'tool_result' && event.id === 'first') ? true : undefined), 'the first call to finish');
  await phaseIs(handle, 'running_tool');
  const sent = Date.now();
  await handle.signal(cancelTurnSignal);
  await phaseIs(handle, 'idle');
  const tookMs = Date.now() - sent;
  expect(tookMs).toBeLessThan(15_000);

  const messages = await handle.query(messagesQuery);
  expectEveryCallAnswered(messages);
  const results = messages[2]?.content as Array<{ type: string; tool_use_id?: string; content?: string; is_error?: boolean; text?: string }>;
  expect(results[0]).toMatchObject({ tool_use_id: 'first', is_error: false, content: expect.stringContaining('first done') });
  // The killed command's own result (with any output it gave), as bash reports a cancel.
  expect(results[1]).toMatchObject({ tool_use_id: 'slow', content: expect.stringMatching(/^Error: command cancelled/) });
  expect(results[2]).toMatchObject({ tool_use_id: 'never', is_error: true, content: CANCELLED_TOOL_RESULT });
  expect(results[3]).toEqual({ type: 'text', text: TURN_CANCELLED_NOTE });
  const step = (await handle.query(stepsQuery)).find((s) => s.reason === 'turn_cancelled');
  expect(step?.detail).toBe('cancelled by the user; cancelled: bash; open for follow-ups for 1m');
  const shown = (await handle.query(eventsQuery, 0)).map(({ event }) => event).filter((event) => event.type === 'tool_result');
  expect(shown.map((event) => [event.id, event.isError])).toEqual([['first', false], ['slow', false], ['never', true]]);
  expect(readFileSync(path.join(workspace, 'first.txt'), 'utf8')).toBe('ran\n');

  await handle.signal(userMessageSignal, { text: 'ok, stop there' });
  await waitFor(async () => ((await reasons(handle)).includes('idle') ? true : undefined), 'the answer to the follow-up');
  expect((await handle.query(messagesQuery)).at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'Stopped, as you asked.' }] });
  await handle.terminate();
  // The killed command never wrote its file, the one not started never ran.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(() => readFileSync(path.join(workspace, 'late.txt'))).toThrow();
  expect(() => readFileSync(path.join(workspace, 'never.txt'))).toThrow();
  console.log(`turn cancel mid bash: idle again ${tookMs} ms after the signal`);
});

test('a background job of an earlier turn goes on; one the cancelled turn started is cancelled with it', async () => {
  h.model.setScenario('cancel-jobs', [
    { toolCalls: [{ id: 'j1', name: 'background_run', arguments: { command: 'sleep 20', task_id: 'earlier' } }] },
    { toolCalls: [{ id: 'j2', name: 'background_run', arguments: { command: 'sleep 20', task_id: 'same' } }, { id: 's', name: 'bash', arguments: { command: 'sleep 30' } }] },
  ]);
  const handle = await h.start({ prompt: 'start jobs', model: 'cancel-jobs', workspace: h.workspace(), permissionMode: 'auto', idleTimeout: '1m', waitForJobs: false });
  await waitFor(async () => ((await handle.query(statusQuery)).backgroundJobs.length === 2 ? true : undefined), 'both jobs to start');
  await phaseIs(handle, 'running_tool');
  await handle.signal(cancelTurnSignal);
  await phaseIs(handle, 'idle');
  // The killed command has its result, so the round ended as usual: the turn is still a cancelled one, and the run waits.
  expect(await reasons(handle)).toEqual(['next_turn', 'next_turn', 'turn_cancelled']);
  expectEveryCallAnswered(await handle.query(messagesQuery));
  const job = (id: string) => h.client.workflow.getHandle(`${handle.workflowId}.${id}`).describe();
  expect((await job('earlier')).status.name).toBe('RUNNING');
  await waitFor(async () => ((await job('same')).status.name === 'CANCELLED' ? true : undefined), 'the same turn\'s job to be cancelled');
  await handle.terminate();
});

test('a turn cancelled while a permission question waits withdraws the question', async () => {
  h.model.setScenario('cancel-ask', [{ toolCalls: [{ id: 'ask', name: 'bash', arguments: { command: 'touch asked.txt' } }] }, { text: 'Fine.' }]);
  const handle = await h.start({ prompt: 'touch it', model: 'cancel-ask', workspace: h.workspace(), idleTimeout: '1m' });
  const { requestId } = await pendingRequest(handle);
  await handle.signal(cancelTurnSignal);
  await phaseIs(handle, 'idle');
  expect((await handle.query(statusQuery)).pendingPermissions).toEqual([]);
  const decided = (await handle.query(eventsQuery, 0)).map(({ event }) => event).find((event) => event.type === 'permission_decided');
  expect(decided).toMatchObject({ requestId, decision: 'deny', reason: 'withdrawn: the turn was cancelled' });
  expect((await handle.describe()).searchAttributes.BareAgentWaitingForHuman).toEqual([false]);
  expectEveryCallAnswered(await handle.query(messagesQuery));
  await handle.terminate();
});

test('cancelTurn while the run waits for a message does nothing; a run without idleTimeout ends cancelled', async () => {
  h.model.setScenario('cancel-idle', [{ text: 'Done.' }]);
  const idle = await h.start({ prompt: 'answer', model: 'cancel-idle', workspace: h.workspace(), idleTimeout: '1m' });
  await phaseIs(idle, 'idle');
  await idle.signal(cancelTurnSignal);
  await idle.query(statusQuery);
  expect(await reasons(idle)).toEqual(['idle']);
  await idle.terminate();

  h.model.setScenario('cancel-closed', [{ hang: true }]);
  const closed = await h.start({ prompt: 'answer', model: 'cancel-closed', workspace: h.workspace() });
  await phaseIs(closed, 'calling_model');
  await closed.signal(cancelTurnSignal);
  await expect(closed.result()).rejects.toMatchObject({ cause: { type: 'Cancelled', message: 'Cancelled: the turn was cancelled (cancelled by the user)' } });
  expect(await reasons(closed)).toEqual(['turn_cancelled', 'stop:cancelled']);
});
