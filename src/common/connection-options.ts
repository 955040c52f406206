import { readFileSync } from 'node:fs';

export interface ConnectionOptions {
  address: string;
  tls?: boolean | { serverNameOverride?: string; serverRootCACertificate?: Buffer; clientCertPair?: { crt: Buffer; key: Buffer } };
  apiKey?: string;
}

/**
 * TLS and authentication from the environment, named as Temporal's own tools name them:
 * TEMPORAL_API_KEY (Temporal Cloud API keys; implies TLS), TEMPORAL_TLS=true, and mTLS with
 * TEMPORAL_TLS_CLIENT_CERT_PATH / TEMPORAL_TLS_CLIENT_KEY_PATH (+ TEMPORAL_TLS_SERVER_CA_CERT_PATH,
 * TEMPORAL_TLS_SERVER_NAME). Nothing set: plain gRPC, as the embedded server wants.
 */
export function connectionOptions(address: string, env: NodeJS.ProcessEnv = process.env): ConnectionOptions {
  const certPath = env.TEMPORAL_TLS_CLIENT_CERT_PATH;
  const keyPath = env.TEMPORAL_TLS_CLIENT_KEY_PATH;
  if (!!certPath !== !!keyPath) {
    throw new Error('Set both TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH for mTLS, or neither');
  }
  const caPath = env.TEMPORAL_TLS_SERVER_CA_CERT_PATH;
  const mtls = certPath && keyPath ? { clientCertPair: { crt: readFileSync(certPath), key: readFileSync(keyPath) } } : {};
  const tlsDetails = {
    ...mtls,
    ...(caPath ? { serverRootCACertificate: readFileSync(caPath) } : {}),
    ...(env.TEMPORAL_TLS_SERVER_NAME ? { serverNameOverride: env.TEMPORAL_TLS_SERVER_NAME } : {}),
  };
  const wantsTls = Object.keys(tlsDetails).length > 0 || !!env.TEMPORAL_API_KEY || env.TEMPORAL_TLS === 'true';
  return {
    address,
    ...(wantsTls ? { tls: Object.keys(tlsDetails).length > 0 ? tlsDetails : true } : {}),
    ...(env.TEMPORAL_API_KEY ? { apiKey: env.TEMPORAL_API_KEY } : {}),
  };
}
