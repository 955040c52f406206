import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { Harness } from '../support/harness';
import { messagesQuery, stepsQuery } from '../../src/common/contract';

/** A final answer is not taken while a Python, JavaScript or JSON file the run changed no longer parses. */
let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

const write = (id: string, file: string, content: string) => ({ id, name: 'write_file', arguments: { file_path: file, content } });

test('an answer with a broken file is refused and the model told where; once the file parses, the answer is taken', async () => {
  h.model.setScenario('syntax-fix', [
    { text: 'Writing.', toolCalls: [write('w1', 'solution.py', 'def f(x):\n    return x *\n'), write('w2', 'data.json', '{"a": 1}\n')] },
    { text: 'Done.' },
    { text: 'Fixing.', toolCalls: [write('w3', 'solution.py', 'def f(x):\n    return x * 2\n')] },
    { text: 'Done now.' },
  ]);
  const workspace = h.workspace({});
  const handle = await h.start({ prompt: 'write f', model: 'syntax-fix', workspace, permissionMode: 'auto' });
  expect(await handle.result()).toMatchObject({ text: 'Done now.', stopReason: 'final_answer' });
  const messages = await handle.query(messagesQuery);
  const refusal = messages.find((m) => typeof m.content === 'string' && m.content.startsWith('Not taken'))?.content as string;
  expect(refusal).toMatch(/^Not taken: files you changed no longer parse \(syntax check 1 of 3\); the task is not done yet:\nsolution\.py:2: SyntaxError: /);
  // The JSON file parses: not named.
  expect(refusal).not.toContain('data.json');
  expect(refusal).toContain('run the code\'s own examples or tests before you answer again');
  expect((await handle.query(stepsQuery)).map((s) => s.reason)).toEqual(['next_turn', 'acceptance_failed', 'next_turn', 'stop:final_answer']);
  expect(readFileSync(path.join(workspace, 'solution.py'), 'utf8')).toBe('def f(x):\n    return x * 2\n');
});

test('JavaScript and JSON too; a gate that keeps refusing stops the run within its bound', async () => {
  h.model.setScenario('syntax-never', [
    { text: 'Writing.', toolCalls: [write('w1', 'a.js', 'function (\n'), write('w2', 'b.json', '{"a": }')] },
    { text: 'Done.' },
    { text: 'Done.' },
    { text: 'Done.' },
    { text: 'Done.' },
  ]);
  const handle = await h.start({ prompt: 'write a.js', model: 'syntax-never', workspace: h.workspace({}), permissionMode: 'auto' });
  const error = (await handle.result().catch((e: unknown) => e)) as WorkflowFailedError;
  expect((error.cause as ApplicationFailure).type).toBe('AcceptanceFailed');
  expect(error.cause?.message).toContain('Syntax check failed 4 times');
  const refusals = (await handle.query(messagesQuery)).filter((m) => typeof m.content === 'string' && m.content.startsWith('Not taken')).map((m) => m.content as string);
  expect(refusals).toHaveLength(3);
  expect(refusals[0]).toContain('SyntaxError');
  expect(refusals[0]).toContain('b.json: ');
});

test('a run that changed no file of those languages commands no check', async () => {
  h.model.setScenario('syntax-none', [{ text: 'Writing.', toolCalls: [write('w1', 'notes.txt', 'def (')] }, { text: 'Done.' }]);
  const handle = await h.start({ prompt: 'notes', model: 'syntax-none', workspace: h.workspace({}), permissionMode: 'auto' });
  await handle.result();
  const history = await handle.fetchHistory();
  const activities = history.events!.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name);
  expect(activities).not.toContain('runCommand');
});
