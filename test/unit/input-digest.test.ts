import { createHash } from 'node:crypto';
import { inputDigest } from '../../src/loop/input-digest';
import { sha256Hex } from '../../src/loop/sha256';

test('the pure SHA-256 agrees with Node\'s on every padding boundary and on non-ASCII text', () => {
  for (const text of ['', 'abc', 'a'.repeat(55), 'a'.repeat(56), 'a'.repeat(64), 'x'.repeat(1000), '日本\u2800😀', '\ud800x']) {
    expect(sha256Hex(text)).toBe(createHash('sha256').update(new TextEncoder().encode(text)).digest('hex'));
  }
});

test('the digest ignores key order but nothing else: a byte of the input, or the tool, changes it', () => {
  const shown = inputDigest('bash', { command: 'mkdir -p build', timeout: 30 });
  expect(inputDigest('bash', { timeout: 30, command: 'mkdir -p build' })).toBe(shown);
  expect(inputDigest('bash', { command: 'mkdir -p build ', timeout: 30 })).not.toBe(shown);
  expect(inputDigest('bash', { command: 'mkdir  -p build', timeout: 30 })).not.toBe(shown);
  expect(inputDigest('background_run', { command: 'mkdir -p build', timeout: 30 })).not.toBe(shown);
  expect(inputDigest('bash', { command: 'echo PWNED > proof', timeout: 30 })).not.toBe(shown);
  expect(shown).toMatch(/^[0-9a-f]{64}$/);
});
