import { checkNextNote, nothingNewNote, readNothingNew, wroteWithoutChecking } from '../../src/loop/next-step';

const ok = (id: string) => ({ type: 'tool_result' as const, tool_use_id: id, content: 'x', is_error: false });
const failed = (id: string) => ({ ...ok(id), is_error: true });

test('a write not followed by a command or an answer in its round calls for the check', () => {
  const write = { id: 'w', name: 'write_file', input: {} };
  expect(wroteWithoutChecking([write], [ok('w')])).toBe(true);
  expect(wroteWithoutChecking([write], [failed('w')])).toBe(false);
  expect(wroteWithoutChecking([write, { id: 'b', name: 'bash', input: {} }], [ok('w'), ok('b')])).toBe(false);
  expect(wroteWithoutChecking([write, { id: 'f', name: 'final_answer', input: {} }], [ok('w'), ok('f')])).toBe(false);
  expect(wroteWithoutChecking([{ id: 'r', name: 'read_file', input: {} }], [ok('r')])).toBe(false);
  // A write whose result names work it left (lines still using a name it took away) is not done yet.
  const left = { ...ok('w'), content: 'Wrote 9 bytes to a.js\n\nStill to do: these lines still use old, which this change took away; change them too, or put it back:\nb.js:1: old()' };
  expect(wroteWithoutChecking([write], [left])).toBe(false);
});

test('the check is quoted when short and on one line, else named', () => {
  expect(checkNextNote('node test.js')).toContain('call bash with `node test.js`');
  expect(checkNextNote(`node -e "${'x'.repeat(400)}"`)).toContain('call bash with its command');
  expect(checkNextNote('a\nb')).toContain('call bash with its command');
});

test('reads only, none new and none failed: the note names final_answer where the run offers it', () => {
  const read = { id: 'r', name: 'glob', input: {} };
  expect(readNothingNew([read], [ok('r')], 0)).toBe(true);
  expect(readNothingNew([read], [ok('r')], 1)).toBe(false);
  expect(readNothingNew([read], [failed('r')], 0)).toBe(false);
  expect(readNothingNew([read, { id: 'w', name: 'write_file', input: {} }], [ok('r'), ok('w')], 0)).toBe(false);
  expect(readNothingNew([], [], 0)).toBe(false);
  expect(nothingNewNote(true)).toContain('call final_answer now');
  expect(nothingNewNote(false)).toContain('give your answer now');
});
