import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedHook {
  path: string;
  body: any;
  at: number;
}

/** What the receiver does with the n-th request (0-based): answer with a status, or never answer. */
export type HookBehaviour = (index: number) => number | 'hang';

/** A local HTTP server that records every POST and answers as told: a real webhook target. */
export class WebhookReceiver {
  readonly received: ReceivedHook[] = [];
  private readonly sockets = new Set<import('node:net').Socket>();

  private constructor(
    private readonly server: http.Server,
    public behaviour: HookBehaviour,
  ) {}

  static async start(behaviour: HookBehaviour = () => 200): Promise<WebhookReceiver> {
    const server = http.createServer();
    const receiver = new WebhookReceiver(server, behaviour);
    server.on('connection', (socket) => {
      receiver.sockets.add(socket);
      socket.on('close', () => receiver.sockets.delete(socket));
    });
    server.on('request', (req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        const index = receiver.received.length;
        receiver.received.push({ path: req.url ?? '', body: text ? JSON.parse(text) : undefined, at: Date.now() });
        const answer = receiver.behaviour(index);
        if (answer === 'hang') return;
        res.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
