import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { resolveAllowed } from '../egress/resolve-allowed';
import { isHostAllowed, parseAllowHosts } from './allow-hosts';

export interface HostProxy {
  /** The directory holding `proxy.sock`, bound into the sandbox. */
  socketDir: string;
  close(): Promise<void>;
}

/**
 * A filtering HTTP proxy for one command, on a unix socket in a fresh directory: the sandbox has
 * no network of its own, so this socket is its only way out. CONNECT (https and anything else
 * tunnelled) and absolute-URI plain HTTP to an allowed host are forwarded; everything else gets 403.
 * An allowed name is then resolved and its address checked against the worker's egress policy
 * (no loopback, private or metadata address unless the operator allows it), and the proxy
 * connects to that checked address: a name on the list that resolves to 127.0.0.1 reaches nothing.
 */
export async function startHostProxy(allowHosts: readonly string[]): Promise<HostProxy> {
  const rules = parseAllowHosts(allowHosts);
  const socketDir = mkdtempSync(path.join(os.tmpdir(), 'bareagent-proxy-'));
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      return refuse(res, 400, 'only absolute http:// URLs are proxied');
    }
    const port = Number(target.port || 80);
    if (target.protocol !== 'http:') return refuse(res, 400, `unsupported scheme ${target.protocol}`);
    if (!isHostAllowed(rules, target.hostname, port)) return refuse(res, 403, `${target.hostname}:${port} is not on the run's allowHosts`);
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    resolveAllowed(target.hostname).then(
      (checked) => {
        const upstream = http.request({ host: checked.address, port, method: req.method, path: `${target.pathname}${target.search}`, headers }, (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        });
        upstream.on('error', (err) => refuse(res, 502, `upstream: ${err.message}`));
        req.pipe(upstream);
      },
      (err: Error) => refuse(res, 403, err.message),
    );
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const [host, portText] = splitHostPort(req.url ?? '');
    const port = Number(portText);
    if (!host || !Number.isInteger(port) || !isHostAllowed(rules, host, port)) {
      client.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${host}:${portText} is not on the run's allowHosts\n`);
      return;
    }
    client.on('error', () => client.destroy());
    resolveAllowed(host).then(
      (checked) => {
        if (client.destroyed) return;
        const upstream = net.connect(port, checked.address, () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (head.length) upstream.write(head);
          upstream.pipe(client);
          client.pipe(upstream);
        });
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
        client.on('close', () => upstream.destroy());
      },
      (err: Error) => client.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${err.message}\n`),
    );
  });
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path.join(socketDir, 'proxy.sock'), () => resolve());
  });
  return {
    socketDir,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(socketDir, { recursive: true, force: true });
    },
  };
}

function refuse(res: http.ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'text/plain', connection: 'close' });
  res.end(`${message}\n`);
}

function splitHostPort(authority: string): [string, string] {
  const at = authority.lastIndexOf(':');
  if (at <= 0) return [authority, ''];
  return [authority.slice(0, at).replace(/^\[|\]$/g, ''), authority.slice(at + 1)];
}
