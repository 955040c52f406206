/**
 * The scripted model of the peers' bench: an OpenAI-compatible Chat Completions server on loopback
 * that answers at once, from the request alone: with k tool results in the conversation it asks for
 * read_file of f<k>.txt, and after TURNS results it gives the final answer. Stateless on purpose:
 * a run resumed after a kill gets the same answer to the same conversation. It records every
 * request per run (the `model` field names the run), so a model call made again shows.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { FINAL_ANSWER, TURNS, fileName } from './task';

export interface ModelRequest {
  /** Tool results already in the conversation: the turn this request asks for. */
  turn: number;
  at: number;
  stream: boolean;
  /** False when the answer was never sent (the process was killed meanwhile). */
  answered: boolean;
}

type Hook = (runId: string, request: ModelRequest) => Promise<'answer' | 'drop'> | 'answer' | 'drop';

export class PeerModel {
  readonly runs = new Map<string, ModelRequest[]>();
  onRequest: Hook = () => 'answer';
  private readonly sockets = new Set<import('node:net').Socket>();

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<PeerModel> {
    const server = http.createServer();
    const model = new PeerModel(server);
    server.on('request', (req, res) => void model.handle(req, res).catch((err) => { res.statusCode = 500; res.end(String(err)); }));
    server.on('connection', (s) => { model.sockets.add(s); s.on('close', () => model.sockets.delete(s)); });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return model;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  requests(runId: string): ModelRequest[] {
    return this.runs.get(runId) ?? [];
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || !/\/chat\/completions$/.test(req.url ?? '')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `${req.method} ${req.url}: only POST /v1/chat/completions` } }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; stream?: boolean; messages: Array<{ role: string }>; tools?: unknown[] };
    const turn = body.messages.filter((m) => m.role === 'tool').length;
    const request: ModelRequest = { turn, at: performance.now(), stream: body.stream === true, answered: false };
    const list = this.runs.get(body.model) ?? [];
    list.push(request);
    this.runs.set(body.model, list);
    if ((await this.onRequest(body.model, request)) === 'drop') {
      req.socket.destroy();
      return;
    }
    const id = `chatcmpl-${body.model}-${turn}`;
    const created = Math.floor(Date.now() / 1000);
    const usage = { prompt_tokens: 100 + turn * 1100, completion_tokens: 12, total_tokens: 112 + turn * 1100 };
    const call = turn < TURNS ? { id: `call_${turn}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ file_path: fileName(turn) }) } } : undefined;
    const finish = call ? 'tool_calls' : 'stop';
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const send = (choices: unknown[], extra: Record<string, unknown> = {}) =>
        res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices, ...extra })}\n\n`);
      if (call) send([{ index: 0, delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, ...call }] }, finish_reason: null }]);
      else send([{ index: 0, delta: { role: 'assistant', content: FINAL_ANSWER }, finish_reason: null }]);
      send([{ index: 0, delta: {}, finish_reason: finish }]);
      send([], { usage });
      res.end('data: [DONE]\n\n');
    } else {
      const message = call ? { role: 'assistant', content: null, tool_calls: [call] } : { role: 'assistant', content: FINAL_ANSWER };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id, object: 'chat.completion', created, model: body.model, choices: [{ index: 0, message, finish_reason: finish }], usage }));
    }
    request.answered = true;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
