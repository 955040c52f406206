import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { EncryptionCodec } from '../../src/codec/encryption-codec';
import { InvalidEncryptionKey, parseEncryptionKey } from '../../src/codec/encryption-key';
import { payloadFromJson, payloadToJson } from '../../src/codec/payload-json';

const key = randomBytes(32);
const codec = new EncryptionCodec(parseEncryptionKey(key.toString('base64')));
const plain = defaultPayloadConverter.toPayload({ prompt: 'secret marker 42' });

test('a 32-byte key is read from base64, URL-safe base64 or hex, all with the same key id', () => {
  const ids = [key.toString('base64'), key.toString('base64url'), key.toString('hex'), ` ${key.toString('hex').toUpperCase()}\n`].map(
    (text) => parseEncryptionKey(text).keyId,
  );
  expect(new Set(ids).size).toBe(1);
  expect(ids[0]).toMatch(/^sha256:[0-9a-f]{16}$/);
});

test.each([
  ['too short', randomBytes(16).toString('base64'), /decodes to 16 bytes; AES-256 needs exactly 32/],
  ['too long hex', randomBytes(33).toString('hex'), /decodes to 33 bytes/],
  ['not an encoding', 'my secret passphrase!', /not hex or base64/],
])('a bad key is refused with a clear message (%s)', (_name, text, message) => {
  expect(() => parseEncryptionKey(text)).toThrow(InvalidEncryptionKey);
  expect(() => parseEncryptionKey(text)).toThrow(message);
  expect(() => parseEncryptionKey(text)).toThrow(/BAREAGENT_ENCRYPTION_KEY: .*\n  Make one with: openssl rand -base64 32/);
});

test('encode hides data and metadata behind binary/encrypted, with a fresh IV each time; decode restores the payload', async () => {
  const [a] = await codec.encode([plain]);
  const [b] = await codec.encode([plain]);
  expect(Buffer.from(a!.metadata!.encoding!).toString()).toBe('binary/encrypted');
  expect(Buffer.from(a!.metadata!['encryption-key-id']!).toString()).toBe(codec.keyId);
  expect(Buffer.from(a!.data!).toString('latin1')).not.toContain('secret marker');
  expect(Buffer.from(a!.data!).toString('latin1')).not.toContain('json/plain');
  expect(Buffer.from(a!.data!).subarray(0, 12).equals(Buffer.from(b!.data!).subarray(0, 12))).toBe(false);
  const [decoded] = await codec.decode([a!]);
  expect(defaultPayloadConverter.fromPayload(decoded!)).toEqual({ prompt: 'secret marker 42' });
});

test('plaintext payloads decode unchanged (runs from before the key was set stay readable)', async () => {
  expect(await codec.decode([plain])).toEqual([plain]);
});

test('a tampered payload, or one from another key, is refused', async () => {
  const [encoded] = await codec.encode([plain]);
  const tampered = Buffer.from(encoded!.data!);
  tampered[20] = (tampered[20] ?? 0) ^ 1;
  await expect(codec.decode([{ ...encoded!, data: tampered }])).rejects.toThrow(/unable to authenticate|auth/i);
  const other = new EncryptionCodec(parseEncryptionKey(randomBytes(32).toString('hex')));
  await expect(other.decode([encoded!])).rejects.toThrow(`Payload was encrypted with key ${codec.keyId}, but BAREAGENT_ENCRYPTION_KEY is key ${other.keyId}`);
});

test('proto3 JSON round trip of a payload (the codec server protocol)', async () => {
  const [encoded] = await codec.encode([plain]);
  const json = payloadToJson(encoded!);
  expect(typeof json.data).toBe('string');
  expect(json.metadata?.encoding).toBe(Buffer.from('binary/encrypted').toString('base64'));
  const back = payloadFromJson(JSON.parse(JSON.stringify(json)));
  expect(defaultPayloadConverter.fromPayload((await codec.decode([back]))[0]!)).toEqual({ prompt: 'secret marker 42' });
  expect(() => payloadFromJson({ data: 42 as unknown as string })).toThrow('payload data must be a base64 string');
});
