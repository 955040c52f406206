import type { RunEvent } from '../../src/common/events';
import { TextBatcher } from '../../src/activities/model/text-batcher';

const text = (delta: string): RunEvent => ({ type: 'text', step: 1, attempt: 1, delta });
const PACE = { intervalMs: 200, laterAfterMs: 2000, laterIntervalMs: 1000 };

describe('TextBatcher', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  test('the first text goes at once, later text once per interval as one event', () => {
    const sent: RunEvent[] = [];
    const batcher = new TextBatcher((event) => sent.push(event), PACE);
    batcher.publish(text('a'));
    expect(sent).toEqual([text('a')]);
    batcher.publish(text('b'));
    batcher.publish(text('c'));
    expect(sent).toHaveLength(1);
    jest.advanceTimersByTime(200);
    expect(sent).toEqual([text('a'), text('bc')]);
    batcher.publish(text('d'));
    jest.advanceTimersByTime(199);
    expect(sent).toHaveLength(2);
    jest.advanceTimersByTime(1);
    expect(sent.at(-1)).toEqual(text('d'));
  });

  test('another event sends the text held back first, so the order holds', () => {
    const sent: RunEvent[] = [];
    const batcher = new TextBatcher((event) => sent.push(event), PACE);
    batcher.publish(text('a'));
    batcher.publish(text('b'));
    const status: RunEvent = { type: 'status', step: 1, message: 'x' };
    batcher.publish(status);
    expect(sent).toEqual([text('a'), text('b'), status]);
    jest.advanceTimersByTime(1000);
    expect(sent).toHaveLength(3);
  });

  test('flush sends what is held back, once', () => {
    const sent: RunEvent[] = [];
    const batcher = new TextBatcher((event) => sent.push(event), PACE);
    batcher.publish(text('a'));
    batcher.publish(text('b'));
    batcher.flush();
    batcher.flush();
    jest.advanceTimersByTime(1000);
    expect(sent).toEqual([text('a'), text('b')]);
  });

  test('a reply that runs long is published once a second after its first two seconds', () => {
    const sent: RunEvent[] = [];
    const batcher = new TextBatcher((event) => sent.push(event), PACE);
    // A slow model: a token every 100 ms for 10 s.
    for (let t = 0; t < 10_000; t += 100) {
      batcher.publish(text('x'));
      jest.advanceTimersByTime(100);
    }
    batcher.flush();
    expect(sent.map((e) => (e as { delta: string }).delta).join('')).toBe('x'.repeat(100));
    // 1 at once, ~10 in the first two seconds, ~8 in the eight after: not the 50 of a fixed 200 ms.
    expect(sent.length).toBeGreaterThanOrEqual(17);
    expect(sent.length).toBeLessThanOrEqual(21);
  });
});
