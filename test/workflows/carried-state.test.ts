/** The state carried across continue-as-new (`resume`) as a versioned contract, checked by the real worker. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Message } from '../../src/common/messages';
import { Harness } from '../support/harness';
import { messagesQuery } from '../../src/common/contract';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create({ done: () => ({ text: 'Picked up where the last run stopped.' }) });
  await h.startWorker();
});
afterAll(() => h.close());

const fixture = (name: string) => JSON.parse(readFileSync(path.join(__dirname, '../fixtures/run-state', name), 'utf8')) as Record<string, unknown>;

test('a run handed state without a version (as runs in flight carry it) takes it as version 1 and carries on', async () => {
  const carried = fixture('v1-unversioned.json');
  const handle = await h.start({ prompt: 'Go long', model: 'done', workspace: h.workspace(), resume: carried });
  expect(await handle.result()).toMatchObject({ text: 'Picked up where the last run stopped.' });
  const messages = await handle.query(messagesQuery);
  expect(messages.slice(0, (carried.messages as Message[]).length)).toEqual(carried.messages);
});

test('a bad carried state fails the run as a non-retryable InvalidInput naming the field', async () => {
  const carried = fixture('v1.json');
  const handle = await h.start({ prompt: 'Go long', model: 'done', workspace: h.workspace(), resume: { ...carried, followUps: 'not a list' } });
  const error: unknown = await handle.result().catch((err: unknown) => err);
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const cause = (error as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  expect(cause).toMatchObject({ type: 'InvalidInput', nonRetryable: true });
  expect(cause?.message).toBe('Invalid carried state: resume.followUps: Invalid input: expected array, received string');
});
