import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { providerConfigFromEnv } from '../../src/connection/provider-config';
import { probeModelEndpoint } from '../../src/doctor/model-endpoint';

/** A server that records what each probe sent and refuses any key but `good`. */
let server: http.Server;
const seen: Array<{ url: string | undefined; headers: http.IncomingHttpHeaders }> = [];
beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({ url: req.url, headers: req.headers });
    const key = req.headers['x-api-key'] ?? req.headers.authorization?.replace(/^Bearer /, '');
    res.writeHead(key === 'good' ? 200 : 401).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
const base = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

test('with only Anthropic variables set, the doctor probes the Messages API the way it takes a key', async () => {
  const config = providerConfigFromEnv({ ANTHROPIC_BASE_URL: base(), ANTHROPIC_API_KEY: 'good' });
  expect(config.defaultProvider).toBe('anthropic');
  expect(await probeModelEndpoint(config)).toEqual({ ok: true, detail: `${base()} (ANTHROPIC_BASE_URL) answers (HTTP 200)` });
  expect(seen.at(-1)).toMatchObject({ url: '/v1/models', headers: { 'x-api-key': 'good', 'anthropic-version': '2023-06-01' } });
  const refused = await probeModelEndpoint(providerConfigFromEnv({ ANTHROPIC_BASE_URL: base(), ANTHROPIC_API_KEY: 'bad' }));
  expect(refused).toMatchObject({ ok: false, fix: 'Set ANTHROPIC_API_KEY to a key this endpoint accepts.' });
});

test('OpenAI-compatible endpoints are probed with a bearer key, and BAREAGENT_PROVIDER picks when both are set', async () => {
  const both = { OPENAI_BASE_URL: `${base()}/v1`, OPENAI_API_KEY: 'good', ANTHROPIC_API_KEY: 'x' };
  expect(providerConfigFromEnv(both).defaultProvider).toBeUndefined();
  expect(await probeModelEndpoint(providerConfigFromEnv(both))).toMatchObject({ ok: true });
  expect(seen.at(-1)).toMatchObject({ url: '/v1/models', headers: { authorization: 'Bearer good' } });
  expect(providerConfigFromEnv({ ...both, BAREAGENT_PROVIDER: 'anthropic' }).defaultProvider).toBe('anthropic');
  expect(() => providerConfigFromEnv({ BAREAGENT_PROVIDER: 'gemini' })).toThrow('BAREAGENT_PROVIDER=gemini: must be one of openai, anthropic');
});
