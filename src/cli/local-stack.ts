import { connectionOptions } from '../connection/connection-options';
import { temporalProfile } from '../connection/temporal-profile';
import { Client, Connection } from '@temporalio/client';
import { dataConverterFromEnv } from '../codec/data-converter';
import { bareagentHome } from '../connection/home';
import { connectionFromEnv, uiPortFromEnv, type ConnectionConfig } from '../connection/config';
import { ensureDevServer, type DevServer } from '../server/dev-server';
import { oldHomeNotice } from './old-home-notice';

export interface Stack {
  client: Client;
  config: ConnectionConfig;
  uiPort: number;
  server?: DevServer;
  close(): Promise<void>;
}

export { bareagentHome };

/**
 * A client for TEMPORAL_ADDRESS (or the profile's address); with `embedded`, the dev server is
 * started there first when neither is set, or (`embedLoopback`, the demo) when the address is
 * on this machine's loopback and nothing answers there yet.
 */
export async function openStack(options: { embedded: boolean; embedLoopback?: boolean; log: (line: string) => void; background?: boolean }): Promise<Stack> {
  const config = connectionFromEnv();
  const uiPort = uiPortFromEnv();
  // Read first: a bad BAREAGENT_ENCRYPTION_KEY is reported before any server starts.
  const dataConverter = dataConverterFromEnv();
  let server: DevServer | undefined;
  const loopback = options.embedLoopback && /^(127\.0\.0\.1|localhost):\d+$/.test(config.address);
  if (options.embedded && (loopback || !temporalProfile().address)) {
    const home = bareagentHome();
    for (const line of oldHomeNotice(home)) options.log(line);
    server = await ensureDevServer({
      address: config.address,
      uiPort,
      home,
      log: options.log,
      background: options.background ?? false,
    });
  }
  const connection = await Connection.connect(connectionOptions(config.address)).catch((err: Error) => {
    throw new Error(`Cannot reach Temporal at ${config.address}: ${err.message}\n  Start one with: npm run server`);
  });
  const client = new Client({ connection, namespace: config.namespace, ...(dataConverter ? { dataConverter } : {}) });
  return {
    client,
    config,
    uiPort,
    ...(server ? { server } : {}),
    close: async () => {
      await connection.close();
    },
  };
}
