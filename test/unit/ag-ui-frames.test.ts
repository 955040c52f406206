import { EventType } from '@ag-ui/core';
import type { RunEvent } from '../../src/common/events';
import { FrameMaker, framesAfter, parsePosition, type Frame } from '../../src/ag-ui/event-frames';

const STREAM: RunEvent[] = [
  { type: 'model_call', step: 1 },
  { type: 'text', step: 1, attempt: 1, delta: 'Hel' },
  { type: 'text', step: 1, attempt: 1, delta: 'lo' },
  { type: 'tool_call', step: 1, id: 'c1', name: 'bash', input: { command: 'ls' } },
  { type: 'tool_result', step: 1, id: 'c1', name: 'bash', isError: false, preview: 'a.txt' },
  { type: 'final', text: 'Hello', stopReason: 'stop' },
];

/** What a client that saw `lastId` is sent: the reopened starts (no id) and the frames. */
function resumeAfter(lastId: string | undefined) {
  const maker = new FrameMaker('t', 'r');
  const state = { started: false };
  const last = lastId === undefined ? undefined : parsePosition(lastId);
  return STREAM.flatMap((event, offset) => [...framesAfter(maker, offset, event, last, state)]);
}

const ids = (items: ReturnType<typeof resumeAfter>) => items.map((item) => ('reopen' in item ? `reopen ${item.reopen.type}` : (item as Frame).id));

test('from any event id, the rest of the stream once: the whole stream is the union of the two halves', () => {
  const all = resumeAfter(undefined).map((item) => (item as Frame).id);
  expect(all).toEqual(['1:0', '1:1', '2:0', '3:0', '3:1', '3:2', '3:3', '4:0', '5:0']);
  for (const [n, cut] of all.entries()) {
    const rest = ids(resumeAfter(cut)).filter((id) => !id.startsWith('reopen'));
    expect(rest).toEqual(all.slice(n + 1));
  }
});

test('a text message or a tool call open at the cut is opened again, under its own id', () => {
  expect(ids(resumeAfter('1:1'))[0]).toBe(`reopen ${EventType.TEXT_MESSAGE_START}`);
  const midCall = resumeAfter('3:1');
  expect(ids(midCall)[0]).toBe(`reopen ${EventType.TOOL_CALL_START}`);
  expect((midCall[0] as { reopen: unknown }).reopen).toMatchObject({ toolCallId: 'c1', toolCallName: 'bash' });
  expect(ids(resumeAfter('3:3'))[0]).toBe('4:0');
  expect(resumeAfter('4:0').at(-1)).toMatchObject({ id: '5:0', ends: true, event: { type: EventType.RUN_FINISHED, result: 'Hello' } });
});
