import { isLivePoller, LIVE_POLLER_MAX_AGE_MS } from '../../src/runs/live-pollers';

const now = Date.parse('2025-01-01T12:00:00Z');
const seenAgo = (ms: number, identity = '4242@build-box') => ({ identity, lastAccessTime: { seconds: Math.floor((now - ms) / 1000), nanos: 0 } });

test('a poller seen moments ago is alive; one last seen 2 minutes ago is not', () => {
  expect(isLivePoller(seenAgo(2_000), now)).toBe(true);
  expect(isLivePoller(seenAgo(120_000), now)).toBe(false);
  expect(isLivePoller(seenAgo(LIVE_POLLER_MAX_AGE_MS + 1_000), now)).toBe(false);
});

test('an idle worker between long polls (last seen well under a minute ago) still counts', () => {
  expect(isLivePoller(seenAgo(45_000), now)).toBe(true);
});

test('another `bareagent run` in-process worker never counts, however recent', () => {
  expect(isLivePoller(seenAgo(0, 'bareagent-run/4242@build-box'), now)).toBe(false);
});

test('a poller whose local process is gone, or with no access time, is not alive', () => {
  expect(isLivePoller(seenAgo(1_000), now, { localPidGone: (identity) => identity === '4242@build-box' })).toBe(false);
  expect(isLivePoller({ identity: 'x' }, now)).toBe(false);
});

test('Long seconds, as the client decodes them, are read too', () => {
  const seconds = { toNumber: () => Math.floor(now / 1000) - 1 };
  expect(isLivePoller({ identity: 'w', lastAccessTime: { seconds } }, now)).toBe(true);
});
