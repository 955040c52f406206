import { lostPortRace } from '../../src/server/dev-server';

const stderr = (port: number) =>
  `level=ERROR msg="failed listening for HTTP API on 127.0.0.1:${port}: listen tcp 127.0.0.1:${port}: bind: address already in use"`;

test('a port the CLI picked itself and lost is a race worth a retry', () => {
  expect(lostPortRace(stderr(36613), [7233, 8233])).toBe(true);
});

test('one of the ports we asked for being taken is not', () => {
  expect(lostPortRace(stderr(7233), [7233, 8233])).toBe(false);
  expect(lostPortRace('some other failure', [7233, 8233])).toBe(false);
});
