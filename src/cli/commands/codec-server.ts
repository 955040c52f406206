import type { Command } from 'commander';
import pc from 'picocolors';
import { EncryptionCodec } from '../../codec/encryption-codec';
import { ENCRYPTION_KEY_ENV, encryptionKeyFromEnv } from '../../codec/encryption-key';
import { startCodecServer } from '../../codec/codec-server';
import { uiPortFromEnv } from '../../common/config';
import { UsageError } from '../run-input';

export interface CodecServerFlags {
  port?: string;
  host?: string;
  origin?: string[];
  json?: boolean;
}

/** `bareagent codec-server`: lets the Web UI (and `temporal --codec-endpoint`) show encrypted payloads decrypted. */
export async function codecServerCommand(flags: CodecServerFlags): Promise<number> {
  const key = encryptionKeyFromEnv();
  if (!key) throw new UsageError(`codec-server needs ${ENCRYPTION_KEY_ENV}: the same key as the worker and the clients.`);
  const port = Number(flags.port ?? 8888);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, got "${flags.port}"`);
  const uiPort = uiPortFromEnv();
  const origins = flags.origin?.length ? flags.origin : [`http://127.0.0.1:${uiPort}`, `http://localhost:${uiPort}`];
  const server = await startCodecServer({
    codec: new EncryptionCodec(key),
    port,
    host: flags.host ?? '127.0.0.1',
    origins,
    log: flags.json ? undefined : (line) => console.error(pc.dim(line)),
  }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE') throw new UsageError(`Port ${port} is taken; choose another with --port.`);
    throw err;
  });
  if (flags.json) console.log(JSON.stringify({ url: server.url, keyId: key.keyId, origins }));
  else {
    console.log(`Codec server on ${server.url} (key ${key.keyId}; browser origins ${origins.join(', ')})`);
    console.log(pc.dim(`Point the Web UI at it: temporal server start-dev --ui-codec-endpoint ${server.url}`));
    console.log(pc.dim(`  or, for the embedded server: BAREAGENT_UI_CODEC_ENDPOINT=${server.url} npm run server`));
    console.log(pc.dim('Ctrl-C stops it.'));
  }
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  return 0;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerCodecServer(program: Command, settle: (code: Promise<number>) => Promise<void>): void {
  program
    .command('codec-server')
    .option('-p, --port <port>', 'port to listen on', '8888')
    .option('--host <address>', 'address to listen on (keep it on loopback unless you add authentication)', '127.0.0.1')
    .option('--origin <url>', 'browser origin allowed by CORS, repeatable (default: the Web UI on BAREAGENT_UI_PORT, 127.0.0.1 and localhost)', collect)
    .option('--json', 'print { url, keyId, origins } once listening')
    .description('serve Temporal\'s remote codec protocol (POST /encode, /decode) with BAREAGENT_ENCRYPTION_KEY')
    .addHelpText(
      'after',
      `
With ${ENCRYPTION_KEY_ENV} set, workers and clients encrypt every payload (AES-256-GCM). The Web UI
and the Temporal CLI only see ciphertext until they are pointed at this server, which holds the key.

Examples:
  export ${ENCRYPTION_KEY_ENV}=$(openssl rand -base64 32)   # the same value for worker and clients
  bareagent codec-server --port 8888
  temporal server start-dev --ui-codec-endpoint http://127.0.0.1:8888
  BAREAGENT_UI_CODEC_ENDPOINT=http://127.0.0.1:8888 npm run server     # the embedded server
  temporal workflow show --workflow-id fix-1 --codec-endpoint http://127.0.0.1:8888`,
    )
    .action((flags: CodecServerFlags) => settle(codecServerCommand(flags)));
}
