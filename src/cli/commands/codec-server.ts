import type { Command } from 'commander';
import { visibleJson } from '../../common/visible-text';
import pc from 'picocolors';
import { EncryptionCodec } from '../../codec/encryption-codec';
import { ENCRYPTION_KEY_ENV, encryptionKeyFromEnv } from '../../codec/encryption-key';
import { startCodecServer } from '../../codec/codec-server';
import { uiPortFromEnv } from '../../connection/config';
import { UsageError } from '../../runs/usage-error';

export interface CodecServerFlags {
  port?: string;
  host?: string;
  origin?: string[];
  token?: string;
  allowEncode?: boolean;
  json?: boolean;
}

export const CODEC_TOKEN_ENV = 'BAREAGENT_CODEC_TOKEN';
export const CODEC_ALLOWED_HOSTS_ENV = 'BAREAGENT_CODEC_ALLOWED_HOSTS';
export const CODEC_ALLOW_ENCODE_ENV = 'BAREAGENT_CODEC_ALLOW_ENCODE';
const MIN_TOKEN_LENGTH = 16;
const LOOPBACK = ['127.0.0.1', 'localhost', '::1'];

/** `bareagent codec-server`: lets the Web UI (and `temporal --codec-endpoint`) show encrypted payloads decrypted. */
export async function codecServerCommand(flags: CodecServerFlags): Promise<number> {
  const key = encryptionKeyFromEnv();
  if (!key) throw new UsageError(`codec-server needs ${ENCRYPTION_KEY_ENV}: the same key as the worker and the clients.`);
  const port = Number(flags.port ?? 8888);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, got "${flags.port}"`);
  const uiPort = uiPortFromEnv();
  const origins = flags.origin?.length ? flags.origin : [`http://127.0.0.1:${uiPort}`, `http://localhost:${uiPort}`];
  const token = flags.token || process.env[CODEC_TOKEN_ENV] || undefined;
  if (token !== undefined && token.length < MIN_TOKEN_LENGTH) {
    throw new UsageError(`The codec server's token must be at least ${MIN_TOKEN_LENGTH} characters: try $(openssl rand -hex 32).`);
  }
  const allowedHosts = (process.env[CODEC_ALLOWED_HOSTS_ENV] ?? '').split(',').map((h) => h.trim()).filter(Boolean);
  const allowEncode = flags.allowEncode === true || ['1', 'true'].includes(process.env[CODEC_ALLOW_ENCODE_ENV] ?? '');
  const host = flags.host ?? '127.0.0.1';
  if (!LOOPBACK.includes(host) && token === undefined) {
    console.error(pc.yellow(`Listening on ${host} without a token: anyone who reaches it can decrypt every payload. Set ${CODEC_TOKEN_ENV}.`));
  }
  const server = await startCodecServer({
    codec: new EncryptionCodec(key),
    port,
    host,
    origins,
    ...(token !== undefined ? { token } : {}),
    allowedHosts,
    allowEncode,
    log: flags.json ? undefined : (line) => console.error(pc.dim(line)),
  }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE') throw new UsageError(`Port ${port} is taken; choose another with --port.`);
    throw err;
  });
  if (flags.json) console.log(visibleJson({ url: server.url, keyId: key.keyId, origins, token: token !== undefined, encode: allowEncode }));
  else {
    console.log(`Codec server on ${server.url} (key ${key.keyId}; browser origins ${origins.join(', ')})`);
    console.log(pc.dim(`${token ? 'Bearer token required' : 'No token'}; /encode ${allowEncode ? 'on' : 'off'}; allowed hosts: loopback${allowedHosts.length ? `, ${allowedHosts.join(', ')}` : ''}`));
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
    .option('--token <token>', `require "Authorization: Bearer <token>" on every request (visible in ps: prefer ${CODEC_TOKEN_ENV})`)
    .option('--allow-encode', `serve POST /encode too (also ${CODEC_ALLOW_ENCODE_ENV}=1): lets callers forge encrypted payloads`)
    .option('--json', 'print { url, keyId, origins, token, encode } once listening')
    .description('serve Temporal\'s remote codec protocol (POST /decode; /encode with --allow-encode) with BAREAGENT_ENCRYPTION_KEY')
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
  temporal workflow show --workflow-id fix-1 --codec-endpoint http://127.0.0.1:8888

Hardening: only requests whose Host header is 127.0.0.1, localhost or [::1] on its port (or one
listed in ${CODEC_ALLOWED_HOSTS_ENV}, comma-separated, "name" or "name:port") are served;
POST bodies must be application/json (at most 4 MB); /encode is off unless --allow-encode.
With a token (${CODEC_TOKEN_ENV}, or --token) every request needs it:
  temporal workflow show --workflow-id fix-1 --codec-endpoint http://127.0.0.1:8888 --codec-auth "Bearer $BAREAGENT_CODEC_TOKEN"
The Web UI sends a bearer token only with its "pass access token" setting, over https, and sends
its own OIDC access token: a token-protected codec server is for the CLI, or behind a proxy.`,
    )
    .action((flags: CodecServerFlags) => settle(codecServerCommand(flags)));
}
