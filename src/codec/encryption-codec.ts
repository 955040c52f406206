import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { METADATA_ENCODING_KEY, ValueError, type Payload, type PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { EncryptionKey } from './encryption-key';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const METADATA_KEY_ID = 'encryption-key-id';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM over the whole serialized payload (its metadata included, so the encoding of the
 * plaintext is hidden too). Wire format of `data`: IV (12 random bytes) | ciphertext | tag (16).
 * Payloads that are not `binary/encrypted` decode unchanged: runs from before the key was set
 * stay readable.
 */
export class EncryptionCodec implements PayloadCodec {
  constructor(private readonly key: EncryptionKey) {}

  get keyId(): string {
    return this.key.keyId;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', this.key.key, iv);
      const plain = temporal.api.common.v1.Payload.encode(payload).finish();
      const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: {
          [METADATA_ENCODING_KEY]: Buffer.from(ENCRYPTED_ENCODING),
          [METADATA_KEY_ID]: Buffer.from(this.key.keyId),
        },
        data,
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const encoding = payload.metadata?.[METADATA_ENCODING_KEY];
      if (!encoding || Buffer.from(encoding).toString() !== ENCRYPTED_ENCODING) return payload;
      const keyIdBytes = payload.metadata?.[METADATA_KEY_ID];
      const keyId = keyIdBytes ? Buffer.from(keyIdBytes).toString() : '(none)';
      if (keyId !== this.key.keyId) {
        throw new ValueError(`Payload was encrypted with key ${keyId}, but BAREAGENT_ENCRYPTION_KEY is key ${this.key.keyId}`);
      }
      const data = Buffer.from(payload.data ?? new Uint8Array());
      if (data.length < IV_BYTES + TAG_BYTES) throw new ValueError('Encrypted payload is too short');
      const decipher = createDecipheriv('aes-256-gcm', this.key.key, data.subarray(0, IV_BYTES));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
      return temporal.api.common.v1.Payload.decode(plain);
    });
  }
}
