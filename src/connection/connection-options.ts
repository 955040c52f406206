import type { TLSConfig } from '@temporalio/client';
import { toClientOptions } from '@temporalio/envconfig';
import { plaintextWarning } from './plaintext-warning';
import { temporalProfile } from './temporal-profile';

export interface ConnectionOptions {
  address: string;
  tls?: boolean | TLSConfig;
  apiKey?: string;
  metadata?: Record<string, string>;
}

const warned = new Set<string>();

/**
 * TLS, API key and gRPC metadata for `address`, from the same profile and TEMPORAL_* variables as the
 * `temporal` CLI (src/common/temporal-profile.ts). Nothing set: plain gRPC, as the embedded server wants.
 */
export function connectionOptions(address: string, env: NodeJS.ProcessEnv = process.env): ConnectionOptions {
  const profile = temporalProfile(env);
  if (!!profile.tls?.clientCert !== !!profile.tls?.clientKey) {
    throw new Error('Set both the TLS client certificate and key for mTLS (TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH), or neither');
  }
  const { tls, apiKey, metadata } = toClientOptions({ ...profile, address }).connectionOptions;
  const options: ConnectionOptions = {
    address,
    ...(tls === undefined || tls === null ? {} : { tls: typeof tls === 'boolean' ? tls : withoutUndefined(tls) }),
    ...(typeof apiKey === 'string' ? { apiKey } : {}),
    ...(metadata && Object.keys(metadata).length ? { metadata: metadata as Record<string, string> } : {}),
  };
  const warning = plaintextWarning(address, options);
  if (warning && !warned.has(address)) {
    warned.add(address);
    console.error(warning);
  }
  return options;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
