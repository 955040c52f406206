import type { Message } from '../../src/common/messages';
import {
  injectNotifications,
  NOTIFICATION_SUMMARY_CHARS,
  notificationMessage,
  type JobNotification,
} from '../../src/loop/notifications';

const done: JobNotification = { taskId: 'job-1', status: 'done', summary: 'tests passed' };
const failed: JobNotification = { taskId: 'job-2', status: 'failed', summary: 'exit code 2' };

describe('notificationMessage', () => {
  test('one system message in the seed\'s exact form', () => {
    expect(notificationMessage([done])).toEqual({
      role: 'system',
      content: '<background-notifications>\nBackground task updates:\n- Task job-1: done - tests passed\n</background-notifications>',
    });
  });

  test('one line per notification, in order, every status', () => {
    const all: JobNotification[] = [
      done,
      failed,
      { taskId: 'job-3', status: 'cancelled', summary: '' },
      { taskId: 'job-4', status: 'timed_out', summary: 'after 30 seconds' },
    ];
    expect(notificationMessage(all).content).toBe(
      [
        '<background-notifications>',
        'Background task updates:',
        '- Task job-1: done - tests passed',
        '- Task job-2: failed - exit code 2',
        '- Task job-3: cancelled - ',
        '- Task job-4: timed_out - after 30 seconds',
        '</background-notifications>',
      ].join('\n'),
    );
  });

  test.each([
    [499, 499],
    [500, 500],
    [501, 500],
    [10_000, 500],
  ])('a %i-char summary keeps %i chars', (length, kept) => {
    expect(NOTIFICATION_SUMMARY_CHARS).toBe(500);
    const summary = 'x'.repeat(length);
    const content = notificationMessage([{ taskId: 'job-1', status: 'done', summary }]).content as string;
    const line = content.split('\n')[2];
    expect(line).toBe(`- Task job-1: done - ${'x'.repeat(kept)}`);
  });
});

describe('injectNotifications', () => {
  const question: Message = { role: 'user', content: 'What changed?' };
  const toolUse: Message = {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } }],
  };
  const toolResults: Message = {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.ts', is_error: false }],
  };
  const blockQuestion: Message = { role: 'user', content: [{ type: 'text', text: 'And now?' }] };
  const answer: Message = { role: 'assistant', content: 'Done.' };
  const note = notificationMessage([done]);

  test.each<[string, Message[], Message[]]>([
    ['before a plain user message (the question stays last)', [question], [note, question]],
    ['before a plain user message with text blocks', [answer, blockQuestion], [answer, note, blockQuestion]],
    ['after a tool_result message (the tool round stays intact)', [question, toolUse, toolResults], [question, toolUse, toolResults, note]],
    ['at the end after an assistant message', [question, answer], [question, answer, note]],
    ['at the end of an empty history', [], [note]],
  ])('%s', (_where, history, expected) => {
    const before = structuredClone(history);
    expect(injectNotifications(history, [done])).toEqual(expected);
    expect(history).toEqual(before);
  });

  test('no notifications: the same messages, in a new array', () => {
    const history = [question];
    const out = injectNotifications(history, []);
    expect(out).toEqual(history);
    expect(out).not.toBe(history);
  });

  test('all drained notifications become one message', () => {
    const out = injectNotifications([question], [done, failed]);
    expect(out).toHaveLength(2);
    expect(out[0]).toEqual(notificationMessage([done, failed]));
  });
});
