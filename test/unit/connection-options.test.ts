import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectionFromEnv } from '../../src/connection/config';
import { connectionOptions } from '../../src/connection/connection-options';
import { plaintextWarning } from '../../src/connection/plaintext-warning';

const dir = mkdtempSync(path.join(os.tmpdir(), 'profile-'));
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};
const ca = file('ca.pem', 'CA');
const crt = file('client.crt', 'CRT');
const key = file('client.key', 'KEY');
const toml = file(
  'temporal.toml',
  `[profile.default]
address = "10.0.0.5:7233"
namespace = "team"

[profile.cloud]
address = "acme.tmprl.cloud:7233"
namespace = "acme.a1b2"
api_key = "key-from-profile"

[profile.mtls]
address = "temporal.internal:7233"
[profile.mtls.tls]
client_cert_path = "${crt}"
client_key_path = "${key}"
server_ca_cert_path = "${ca}"
server_name = "temporal.internal"
`,
);
// No profile file unless a test names one: HOME points at an empty directory.
const bare = { HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'none') };

describe('the TEMPORAL_* variables, as the temporal CLI reads them', () => {
  test('nothing set: the default address and namespace, plain gRPC', () => {
    expect(connectionFromEnv(bare)).toEqual({ address: '127.0.0.1:7233', namespace: 'default', taskQueue: 'bareagent' });
    expect(connectionOptions('127.0.0.1:7233', bare)).toEqual({ address: '127.0.0.1:7233' });
  });
  test('an empty variable counts as unset', () => {
    expect(connectionFromEnv({ ...bare, TEMPORAL_ADDRESS: '', TEMPORAL_NAMESPACE: '' })).toMatchObject({ address: '127.0.0.1:7233', namespace: 'default' });
  });
  test('TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and BAREAGENT_TASK_QUEUE', () => {
    expect(connectionFromEnv({ ...bare, TEMPORAL_ADDRESS: 'h:1', TEMPORAL_NAMESPACE: 'ns', BAREAGENT_TASK_QUEUE: 'q' })).toEqual({ address: 'h:1', namespace: 'ns', taskQueue: 'q' });
  });
  test('an API key implies TLS', () => {
    expect(connectionOptions('acme.tmprl.cloud:7233', { ...bare, TEMPORAL_API_KEY: 'k' })).toEqual({ address: 'acme.tmprl.cloud:7233', tls: true, apiKey: 'k' });
  });
  test('TEMPORAL_TLS=true alone turns TLS on; mTLS from the certificate paths', () => {
    expect(connectionOptions('h:7233', { ...bare, TEMPORAL_TLS: 'true' }).tls).toBeTruthy();
    const mtls = connectionOptions('h:7233', { ...bare, TEMPORAL_TLS_CLIENT_CERT_PATH: crt, TEMPORAL_TLS_CLIENT_KEY_PATH: key, TEMPORAL_TLS_SERVER_NAME: 'n' });
    expect(mtls.tls).toEqual({ serverNameOverride: 'n', clientCertPair: { crt: Buffer.from('CRT'), key: Buffer.from('KEY') } });
  });
  test('half an mTLS pair is an error, not a silent plain connection', () => {
    expect(() => connectionOptions('h:7233', { ...bare, TEMPORAL_TLS_CLIENT_CERT_PATH: crt })).toThrow(/both the TLS client certificate and key/);
  });
  test('gRPC metadata from TEMPORAL_GRPC_META_*', () => {
    expect(connectionOptions('127.0.0.1:7233', { ...bare, TEMPORAL_GRPC_META_X_TENANT: 'blue' }).metadata).toEqual({ 'x-tenant': 'blue' });
  });
});

describe('TOML profiles (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE)', () => {
  test('the default profile gives address and namespace', () => {
    expect(connectionFromEnv({ ...bare, TEMPORAL_CONFIG_FILE: toml })).toMatchObject({ address: '10.0.0.5:7233', namespace: 'team' });
  });
  test('a named profile, with its API key', () => {
    const env = { ...bare, TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'cloud' };
    expect(connectionFromEnv(env)).toMatchObject({ address: 'acme.tmprl.cloud:7233', namespace: 'acme.a1b2' });
    expect(connectionOptions('acme.tmprl.cloud:7233', env)).toEqual({ address: 'acme.tmprl.cloud:7233', tls: true, apiKey: 'key-from-profile' });
  });
  test('an mTLS profile reads its certificate files', () => {
    const options = connectionOptions('temporal.internal:7233', { ...bare, TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'mtls' });
    expect(options.tls).toEqual({ serverNameOverride: 'temporal.internal', serverRootCACertificate: Buffer.from('CA'), clientCertPair: { crt: Buffer.from('CRT'), key: Buffer.from('KEY') } });
  });
  test('variables win over the profile', () => {
    expect(connectionFromEnv({ ...bare, TEMPORAL_CONFIG_FILE: toml, TEMPORAL_ADDRESS: '127.0.0.1:9', TEMPORAL_NAMESPACE: 'x' })).toMatchObject({ address: '127.0.0.1:9', namespace: 'x' });
  });
  test('the default file under the user config directory is read too', () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'home-'));
    const configDir = path.join(home, 'temporalio');
    mkdirSync(configDir);
    writeFileSync(path.join(configDir, 'temporal.toml'), '[profile.default]\naddress = "from-default-file:7233"\n');
    expect(connectionFromEnv({ HOME: home, XDG_CONFIG_HOME: home }).address).toBe('from-default-file:7233');
  });
  test('a profile that does not exist, or a broken file, is a clear error', () => {
    expect(() => connectionFromEnv({ ...bare, TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'nope' })).toThrow(/Cannot read the Temporal connection profile .*Profile 'nope' not found/);
    const broken = file('broken.toml', '[profile.default\naddress = ');
    expect(() => connectionFromEnv({ ...bare, TEMPORAL_CONFIG_FILE: broken })).toThrow(/Cannot read the Temporal connection profile/);
  });
});

describe('a warning for a plaintext connection off this machine', () => {
  test.each(['127.0.0.1:7233', 'localhost:7233', '[::1]:7233', '127.0.0.2:7244'])('none for loopback %s', (address) => {
    expect(plaintextWarning(address, {})).toBeUndefined();
  });
  test('one for another host without TLS or an API key', () => {
    expect(plaintextWarning('temporal:7233', {})).toMatch(/^Warning: connecting to Temporal at temporal:7233 without TLS or an API key/);
    expect(plaintextWarning('10.0.0.5:7233', { tls: false })).toBeDefined();
  });
  test('none with TLS or an API key', () => {
    expect(plaintextWarning('temporal:7233', { tls: true })).toBeUndefined();
    expect(plaintextWarning('temporal:7233', { apiKey: 'k' })).toBeUndefined();
  });
  test('connectionOptions prints it on stderr once per address', () => {
    const spy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      connectionOptions('10.9.9.9:7233', bare);
      connectionOptions('10.9.9.9:7233', bare);
      connectionOptions('127.0.0.1:7233', bare);
      expect(spy.mock.calls.map((c) => String(c[0]))).toEqual([expect.stringMatching(/10\.9\.9\.9:7233 without TLS/)]);
    } finally {
      spy.mockRestore();
    }
  });
});
