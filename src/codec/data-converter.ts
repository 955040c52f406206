import type { DataConverter } from '@temporalio/common';
import { EncryptionCodec } from './encryption-codec';
import { encryptionKeyFromEnv } from './encryption-key';

/**
 * The data converter of every client and worker this project creates: the SDK's default, plus
 * the AES-GCM codec when BAREAGENT_ENCRYPTION_KEY is set. Codecs run outside the workflow
 * sandbox, so nothing here touches src/workflows or the workflow bundle.
 */
export function dataConverterFromEnv(env: NodeJS.ProcessEnv = process.env): DataConverter | undefined {
  const key = encryptionKeyFromEnv(env);
  return key ? { payloadCodecs: [new EncryptionCodec(key)] } : undefined;
}
