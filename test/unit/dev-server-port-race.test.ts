import { lostPortRace, OutputEnds } from '../../src/server/dev-server';

const stderr = (port: number) =>
  `level=ERROR msg="failed listening for HTTP API on 127.0.0.1:${port}: listen tcp 127.0.0.1:${port}: bind: address already in use"`;

test('a port the CLI picked itself and lost is a race worth a retry', () => {
  expect(lostPortRace(stderr(36613), [7233, 8233])).toBe(true);
});

test('one of the ports we asked for being taken is not', () => {
  expect(lostPortRace(stderr(7233), [7233, 8233])).toBe(false);
  expect(lostPortRace('some other failure', [7233, 8233])).toBe(false);
});

test("a lost port is still seen when a panic's goroutine dump follows it", () => {
  const output = new OutputEnds();
  output.add(`panic: ${stderr(36613)}\n\ngoroutine 1 [running]:\n`);
  for (let i = 0; i < 2000; i++) output.add(`go.uber.org/dig.paramList.BuildList(...)\n\t/home/runner/go/pkg/mod/go.uber.org/dig@v1.19.0/param.go:${i}\n`);
  const kept = output.toString();
  expect(lostPortRace(kept, [7233, 8233])).toBe(true);
  expect(kept).toContain('[... cut ...]');
  expect(kept.endsWith('param.go:1999\n')).toBe(true);
});

test('a short output is kept whole', () => {
  const output = new OutputEnds();
  output.add('one\n');
  output.add('two\n');
  expect(output.toString()).toBe('one\ntwo\n');
});
