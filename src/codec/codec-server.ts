import { createHash, timingSafeEqual } from 'node:crypto';
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
  /** When set, every request but a CORS preflight must carry `Authorization: Bearer <token>`. */
  token?: string;
  /** `Host` headers accepted besides loopback on the server's port: `name` (any port) or `name:port`. */
  allowedHosts?: string[];
  /**
   * Serve POST /encode too. Off by default: whoever can encode can forge payloads (a workflow
   * input, a signal) that workers take as written by a holder of the key; reading needs /decode only.
   */
  allowEncode?: boolean;
  /** Larger bodies are refused with 413 (default 4 MB: Temporal refuses payloads over 2 MB anyway). */
  maxBodyBytes?: number;
  log?: (line: string) => void;
}

export interface CodecServer {
  url: string;
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY = 4 * 1024 * 1024;
/** Past this much, an oversized body is no longer read to its end (to answer 413 cleanly): the connection is cut. */
const DRAIN_FACTOR = 4;

class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * Temporal's remote codec protocol: POST .../encode and .../decode with `{ payloads: [...] }`
 * (proto3 JSON) answer the same shape; only the last path segment counts, so the server can be
 * mounted under a per-namespace prefix. The Web UI sends `X-Namespace` and needs CORS with a
 * preflight; one key serves every namespace here, so the header is allowed and logged, not used.
 *
 * Whoever reaches it reads every payload, so each request is checked, in this order: the `Host`
 * header names this server (403: a DNS-rebinding page reaches loopback under its own host name);
 * a browser's `Origin`, when sent, is an allowed one (403); the bearer token, when one is
 * configured (401); the operation exists and is enabled (404); the body is
 * `Content-Type: application/json` (415: a cross-site form can post text/plain or
 * form-urlencoded without a preflight, never JSON) and not too large (413).
 */
export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  const log = options.log ?? (() => undefined);
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  let allowedHosts = new Set<string>();
  const server = http.createServer((req, res) => {
    const origin = req.headers.origin;
    const originAllowed = origin !== undefined && options.origins.includes(origin);
    if (originAllowed) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      // Authorization-Extras: the Web UI sends the user's ID token there with "pass access token".
      res.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization, Authorization-Extras');
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Vary', 'Origin');
    }
    const host = (req.headers.host ?? '').toLowerCase();
    if (!allowedHosts.has(host) && !allowedHosts.has(hostName(host))) {
      refuse(res, log, 403, `Host "${host}" is not this codec server's (allow it with BAREAGENT_CODEC_ALLOWED_HOSTS)`);
      return;
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(originAllowed ? 204 : 403).end();
      return;
    }
    if (origin !== undefined && !originAllowed) {
      refuse(res, log, 403, `browser origin ${origin} is not allowed (--origin)`);
      return;
    }
    if (options.token !== undefined && !bearerMatches(req.headers.authorization, options.token)) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      refuse(res, log, 401, 'missing or wrong bearer token');
      return;
    }
    const operation = new URL(req.url ?? '/', 'http://codec').pathname.split('/').filter(Boolean).pop();
    const operations = options.allowEncode ? ['decode', 'encode'] : ['decode'];
    if (req.method !== 'POST' || operation === undefined || !operations.includes(operation)) {
      send(res, 404, { message: `POST ${operations.map((op) => `/${op}`).join(' or ')}` });
      return;
    }
    if (mediaType(req.headers['content-type']) !== 'application/json') {
      refuse(res, log, 415, 'the body must be Content-Type: application/json');
      return;
    }
    readBody(req, maxBody)
      .then(async (body) => {
        const payloads = parsePayloads(body);
        const out = operation === 'encode' ? await options.codec.encode(payloads) : await options.codec.decode(payloads);
        log(`${operation} ${payloads.length} payload(s) for namespace ${String(req.headers['x-namespace'] ?? '-')}`);
        send(res, 200, { payloads: out.map(payloadToJson) });
      })
      .catch((err: Error) => refuse(res, log, err instanceof HttpRefusal ? err.status : 400, `${operation}: ${err.message}`));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  allowedHosts = hostsFor(address, options.allowedHosts ?? []);
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Loopback names on the server's port, the address it listens on (unless a wildcard), and the configured ones. */
function hostsFor(address: AddressInfo, configured: string[]): Set<string> {
  const port = address.port;
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
  if (!['0.0.0.0', '::'].includes(address.address)) {
    hosts.push(address.family === 'IPv6' ? `[${address.address}]:${port}` : `${address.address}:${port}`);
  }
  return new Set([...hosts, ...configured.map((host) => host.trim().toLowerCase()).filter(Boolean)]);
}

/** `name` of `name:port` or `[v6]:port`: a configured host without a port accepts any. */
function hostName(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.lastIndexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

/** Compared as SHA-256 digests: equal lengths for timingSafeEqual, and the token's length stays unknown. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(match?.[1] ?? ''), digest(token)) && match !== null;
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
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

/**
 * Reads at most `max` bytes. An oversized body is read on to its end without being kept, so the
 * client, still sending, gets its 413 rather than a reset connection; a much larger one is cut.
 */
function readBody(req: http.IncomingMessage, max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const tooLarge = () => new HttpRefusal(413, `the body is over ${max} bytes`);
    if (Number(req.headers['content-length'] ?? 0) > max * DRAIN_FACTOR) {
      reject(tooLarge());
      req.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) chunks.push(chunk);
      else if (size > max * DRAIN_FACTOR) {
        reject(tooLarge());
        req.destroy();
      }
    });
    req.on('end', () => (size > max ? reject(tooLarge()) : resolve(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}

function refuse(res: http.ServerResponse, log: (line: string) => void, status: number, message: string): void {
  log(`refused (${status}): ${message}`);
  send(res, status, { message });
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}
