import type { RunEvent } from '../../src/common/events';
import { TextBatcher } from '../../src/activities/model/text-batcher';

const text = (delta: string): RunEvent => ({ type: 'text', step: 1, attempt: 1, delta });

describe('TextBatcher', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  test('the first text goes at once, later text once per interval as one event', () => {
    const sent: RunEvent[] = [];
    const batcher = new TextBatcher((event) => sent.push(event), 200);
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
    const batcher = new TextBatcher((event) => sent.push(event), 200);
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
    const batcher = new TextBatcher((event) => sent.push(event), 200);
    batcher.publish(text('a'));
    batcher.publish(text('b'));
    batcher.flush();
    batcher.flush();
    jest.advanceTimersByTime(1000);
    expect(sent).toEqual([text('a'), text('b')]);
  });
});
