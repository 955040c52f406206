import { ApplicationFailure } from '@temporalio/common';
import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { errorTypeName, isRetryableStatus, retryAfterMs } from '../../src/activities/model/provider-errors';
import { isStreamingUnsupported, toProviderFailure } from '../../src/activities/model/providers/openai/errors';

const apiError = (status: number, headers: Record<string, string> = {}, message = 'x'): APIError =>
  APIError.generate(status, { error: { message } }, message, new Headers(headers));

describe('isRetryableStatus: 408, 409, 429 and 5xx', () => {
  test.each([
    [408, true],
    [409, true],
    [429, true],
    [500, true],
    [502, true],
    [503, true],
    [529, true],
    [400, false],
    [401, false],
    [403, false],
    [404, false],
    [422, false],
  ])('%i → %s', (status, retryable) => {
    expect(isRetryableStatus(status)).toBe(retryable);
  });
});

describe('retryAfterMs', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  test.each<[string, Record<string, string> | undefined, number | undefined]>([
    ['no headers at all', undefined, undefined],
    ['no retry headers', { 'content-type': 'application/json' }, undefined],
    ['retry-after in seconds', { 'retry-after': '2' }, 2000],
    ['retry-after in fractional seconds', { 'retry-after': '0.5' }, 500],
    ['retry-after of 0', { 'retry-after': '0' }, 0],
    ['retry-after-ms', { 'retry-after-ms': '1500' }, 1500],
    ['retry-after-ms wins over retry-after', { 'retry-after-ms': '250', 'retry-after': '9' }, 250],
    ['a retry-after-ms that is not a number falls back', { 'retry-after-ms': 'soon', 'retry-after': '3' }, 3000],
    ['retry-after as an HTTP date', { 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }, 30_000],
    ['an HTTP date in the past', { 'retry-after': 'Tue, 31 Dec 2024 23:59:00 GMT' }, 0],
    ['a retry-after that is neither', { 'retry-after': 'later' }, undefined],
    ['capped at 5 minutes (seconds)', { 'retry-after': '3600' }, 300_000],
    ['capped at 5 minutes (ms)', { 'retry-after-ms': '3600000' }, 300_000],
  ])('%s', (_what, headers, expected) => {
    expect(retryAfterMs(headers ? new Headers(headers) : undefined, now)).toBe(expected);
  });
});

describe('toProviderFailure', () => {
  test.each<[number, string, boolean]>([
    [400, 'BadRequestError', true],
    [401, 'AuthenticationError', true],
    [403, 'PermissionDeniedError', true],
    [404, 'NotFoundError', true],
    [422, 'UnprocessableEntityError', true],
    [408, 'APIError', false],
    [409, 'ConflictError', false],
    [429, 'RateLimitError', false],
    [500, 'InternalServerError', false],
    [503, 'InternalServerError', false],
  ])('HTTP %i: type %s, nonRetryable %s', (status, type, nonRetryable) => {
    const failure = toProviderFailure(apiError(status, {}, 'provider says no'));
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe(type);
    expect(failure.nonRetryable).toBe(nonRetryable);
    expect(failure.message).toContain('provider says no');
    expect(failure.nextRetryDelay).toBeUndefined();
  });

  test.each<[number, Record<string, string>, number]>([
    [429, { 'retry-after': '7' }, 7000],
    [503, { 'retry-after-ms': '1200' }, 1200],
    [408, { 'retry-after': '1' }, 1000],
  ])('HTTP %i with %j: nextRetryDelay %i ms', (status, headers, delay) => {
    const failure = toProviderFailure(apiError(status, headers));
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBe(delay);
  });

  test('a lost connection is retried', () => {
    const failure = toProviderFailure(new APIConnectionError({ message: 'socket hang up' }));
    expect(failure.type).toBe('APIConnectionError');
    expect(failure.nonRetryable).toBe(false);
  });

  test('a connection error names the endpoint and the variable that chose it', () => {
    const refused = new APIConnectionError({ cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });
    expect(toProviderFailure(refused, 'http://127.0.0.1:9/v1').message).toBe(
      'Connection error: cannot reach the model endpoint http://127.0.0.1:9/v1 (OPENAI_BASE_URL): connect ECONNREFUSED 127.0.0.1:9',
    );
    expect(toProviderFailure(new APIConnectionError({ message: 'socket hang up' })).message).toContain('https://api.openai.com/v1 (OPENAI_BASE_URL unset)');
    expect(toProviderFailure(apiError(401, {}, 'Incorrect API key'), 'http://m.example/v1').message).toContain('refused OPENAI_API_KEY');
  });

  test.each<[string, unknown, string]>([
    ['an abort', new APIUserAbortError(), 'APIUserAbortError'],
    ['a plain Error', new Error('boom'), 'Error'],
    ['a TypeError', new TypeError('bad'), 'TypeError'],
    ['a thrown string', 'weird', 'Error'],
  ])('anything else is final: %s', (_what, err, type) => {
    const failure = toProviderFailure(err);
    expect(failure.type).toBe(type);
    expect(failure.nonRetryable).toBe(true);
  });

  test('an ApplicationFailure passes through as it is', () => {
    const original = ApplicationFailure.create({ type: 'Mine', message: 'm', nonRetryable: false });
    expect(toProviderFailure(original)).toBe(original);
  });

  test('errorTypeName uses the class name, or the name of a plain Error', () => {
    expect(errorTypeName(apiError(429))).toBe('RateLimitError');
    const named = new Error('x');
    named.name = 'NotImplementedError';
    expect(errorTypeName(named)).toBe('NotImplementedError');
    expect(errorTypeName({})).toBe('Error');
  });
});

describe('isStreamingUnsupported', () => {
  test.each<[string, boolean, unknown]>([
    ['501', true, apiError(501)],
    ['400 "streaming is not supported"', true, apiError(400, {}, 'streaming is not supported')],
    ['400 "stream unsupported"', true, apiError(400, {}, 'stream unsupported for this model')],
    ['400 about something else', false, apiError(400, {}, 'max_tokens is too large')],
    ['500 that mentions streaming', false, apiError(500, {}, 'stream not supported')],
    ['not an APIError', false, new Error('stream not supported')],
    ["llama.cpp's 500 Invalid diff", true, apiError(500, {}, 'Invalid diff: now finding less tool calls!')],
    ["llama.cpp's Invalid diff mid-stream (no status)", true, new APIError(undefined, { message: 'Invalid diff: now finding less tool calls!' }, undefined, new Headers())],
  ])('%s → %s', (_what, expected, err) => {
    expect(isStreamingUnsupported(err)).toBe(expected);
  });
});
