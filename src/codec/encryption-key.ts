import { createHash } from 'node:crypto';

/** A 256-bit AES key and the short id stored beside every payload it encrypted. */
export interface EncryptionKey {
  key: Buffer;
  /** Derived from the key, so a payload encrypted with another key is named, not garbled. */
  keyId: string;
}

export const ENCRYPTION_KEY_ENV = 'BAREAGENT_ENCRYPTION_KEY';

export class InvalidEncryptionKey extends Error {
  constructor(message: string) {
    super(`${ENCRYPTION_KEY_ENV}: ${message}\n  Make one with: openssl rand -base64 32`);
    this.name = new.target.name;
  }
}

/** 64 hex digits or base64 (standard or URL-safe) of exactly 32 bytes; anything else is refused. */
export function parseEncryptionKey(text: string): EncryptionKey {
  const trimmed = text.trim();
  let key: Buffer;
  // Even-length hex is read as hex: a 32-byte key in base64 always has a '=' or an odd length.
  if (/^([0-9a-fA-F]{2})+$/.test(trimmed)) key = Buffer.from(trimmed, 'hex');
  else if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) key = Buffer.from(trimmed, 'base64');
  else throw new InvalidEncryptionKey('not hex or base64; expected a 32-byte key as 64 hex digits or 44 base64 characters.');
  if (key.length !== 32) {
    throw new InvalidEncryptionKey(`decodes to ${key.length} bytes; AES-256 needs exactly 32 (64 hex digits or 44 base64 characters).`);
  }
  return { key, keyId: `sha256:${createHash('sha256').update(key).digest('hex').slice(0, 16)}` };
}

/** The key from the environment, or undefined when encryption is off (the default). */
export function encryptionKeyFromEnv(env: NodeJS.ProcessEnv = process.env): EncryptionKey | undefined {
  const value = env[ENCRYPTION_KEY_ENV];
  return value ? parseEncryptionKey(value) : undefined;
}
