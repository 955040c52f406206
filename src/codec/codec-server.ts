import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PayloadCodec } from '@temporalio/common';
import { payloadFromJson, payloadToJson, type JsonPayload } from './payload-json';

export interface CodecServerOptions {
  codec: PayloadCodec;
  port: number;
  host?: string;
  /** Browser origins allowed to call it (the Web UI's); CORS answers name the caller's origin. */
  origins: string[];
  log?: (line: string) => void;
}

export interface CodecServer {
  url: string;
  close(): Promise<void>;
}

const MAX_BODY = 16 * 1024 * 1024;

/**
 * Temporal's remote codec protocol: POST .../encode and .../decode with `{ payloads: [...] }`
 * (proto3 JSON) answer the same shape; only the last path segment counts, so the server can be
 * mounted under a per-namespace prefix. The Web UI sends `X-Namespace` and needs CORS with a
 * preflight; one key serves every namespace here, so the header is allowed and logged, not used.
 */
export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  const log = options.log ?? (() => undefined);
  const server = http.createServer((req, res) => {
    const origin = req.headers.origin;
    if (origin && options.origins.includes(origin)) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization');
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Vary', 'Origin');
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(origin && options.origins.includes(origin) ? 204 : 403).end();
      return;
    }
    const operation = new URL(req.url ?? '/', 'http://codec').pathname.split('/').filter(Boolean).pop();
    if (req.method !== 'POST' || (operation !== 'encode' && operation !== 'decode')) {
      send(res, 404, { message: 'POST /encode or /decode' });
      return;
    }
    readBody(req)
      .then(async (body) => {
        const payloads = parsePayloads(body);
        const out = operation === 'encode' ? await options.codec.encode(payloads) : await options.codec.decode(payloads);
        log(`${operation} ${payloads.length} payload(s) for namespace ${String(req.headers['x-namespace'] ?? '-')}`);
        send(res, 200, { payloads: out.map(payloadToJson) });
      })
      .catch((err: Error) => {
        log(`${operation} refused: ${err.message}`);
        send(res, 400, { message: err.message });
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parsePayloads(body: string): Parameters<PayloadCodec['decode']>[0] {
  let parsed: { payloads?: unknown };
  try {
    parsed = JSON.parse(body) as { payloads?: unknown };
  } catch {
    throw new Error('the body is not JSON');
  }
  if (!Array.isArray(parsed?.payloads)) throw new Error('expected { "payloads": [...] }');
  return parsed.payloads.map((p) => payloadFromJson(p as JsonPayload));
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new Error('the body is too large'));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}
