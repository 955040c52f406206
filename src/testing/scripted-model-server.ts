import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicErrorType, anthropicEvents, anthropicMessage, badThinkingBlock, chatBodyOf, PromptCache, type AnthropicAnswer } from './scripted-anthropic';

/** One scripted answer of the fake model. */
export interface ScriptStep {
  text?: string;
  /** Split the streamed text into these deltas (default: about three pieces). */
  chunks?: string[];
  /** `arguments` as an object, or a raw string to send invalid JSON. */
  toolCalls?: Array<{ id?: string; name: string; arguments?: unknown }>;
  usage?: { prompt_tokens: number; completion_tokens: number };
  finishReason?: string;
  /** Answer with this HTTP status and an error body instead. */
  status?: number;
  errorMessage?: string;
  headers?: Record<string, string>;
  delayMs?: number;
  /** Answer only once this settles: a test holds the model on an event of its own (never a clock). */
  after?: Promise<unknown>;
  /** Streaming only: wait this long between chunks. */
  chunkDelayMs?: number;
  /** Streaming only: send this many chunks, then cut the connection. */
  breakAfterChunks?: number;
  /** Streaming only: leave out the finish_reason chunk and the usage chunk, then end cleanly. */
  noFinishReason?: boolean;
  /** Report no usage (no usage chunk in a stream, no `usage` field otherwise), as llama.cpp's server does. */
  noUsage?: boolean;
  /** Streaming only: answer 200 with an event stream that ends at once, with no event. */
  noEvents?: boolean;
  /** Streaming requests get 400 "streaming is not supported"; non-streaming ones the answer. */
  streamUnsupported?: boolean;
  /** Streaming requests get a 500 with this message (llama.cpp's `Invalid diff: now finding less tool calls!`); non-streaming ones the answer. */
  streamError?: string;
  /** Never answer (a hung connection). */
  hang?: boolean;
  /**
   * Answer by what the tools returned: `then` when the request's last tool result matches the
   * regular expression `matches`, else `otherwise` (a script that cannot claim a result the tools
   * did not give). In their text, `{{lastToolResult}}` is that result's first line.
   */
  ifLastToolResult?: { matches: string; then: ScriptStep; otherwise: ScriptStep };
  /** A reasoning model's thinking, sent beside the text under `reasoningField` (default `reasoning_content`), streamed first. */
  reasoning?: string;
  reasoningField?: 'reasoning_content' | 'reasoning';
  /** Refuse a request that sets `max_tokens` with OpenAI's 400 naming `max_completion_tokens` (the step is not used up). */
  refuseMaxTokens?: boolean;
}

export interface RecordedRequest {
  scenario: string;
  index: number;
  /** The request as a Chat Completions body, whichever wire it came on. */
  body: any;
  /** `anthropic`: it came to `POST /v1/messages`, as `raw`. */
  wire: 'openai' | 'anthropic';
  raw: any;
  /** Anthropic's wire: the input tokens the prompt cache found uncached, read and written. */
  cache?: { input_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number };
  headers: http.IncomingHttpHeaders;
  receivedAt: number;
}

/** A list of answers, or a function of the request (return undefined when the script is over). */
export type Scenario = ScriptStep[] | ((body: any, index: number, headers: http.IncomingHttpHeaders) => ScriptStep | undefined);

/**
 * A model server on loopback that answers from scripts, on both OpenAI's Chat Completions
 * (`POST /v1/chat/completions`) and Anthropic's Messages API (`POST /v1/messages`, with a prompt
 * cache: src/testing/scripted-anthropic.ts). The request's `model` names the scenario. It records every request, and answers HTTP 500
 * naming the scenario when a script runs out, so a test can never pass by accident.
 */
export class ScriptedModelServer {
  readonly requests: RecordedRequest[] = [];
  private readonly scenarios = new Map<string, Scenario>();
  private readonly served = new Map<string, number>();
  private readonly open = new Map<string, number>();
  private readonly mostOpen = new Map<string, number>();
  private readonly sockets = new Set<import('node:net').Socket>();
  private readonly cache = new PromptCache();

  private constructor(private readonly server: http.Server) {}

  static async start(scenarios: Record<string, Scenario> = {}, port = 0): Promise<ScriptedModelServer> {
    const server = http.createServer();
    const fake = new ScriptedModelServer(server);
    for (const [name, scenario] of Object.entries(scenarios)) fake.setScenario(name, scenario);
    server.on('request', (req, res) => void fake.handle(req, res));
    server.on('connection', (socket) => {
      fake.sockets.add(socket);
      socket.on('close', () => fake.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return fake;
  }

  static loadScenarios(file: string): Record<string, ScriptStep[]> {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, ScriptStep[]>;
  }

  /** The base URL for OPENAI_BASE_URL. */
  get url(): string {
    return `${this.anthropicUrl}/v1`;
  }

  /** The base URL for ANTHROPIC_BASE_URL (its SDK adds `/v1/messages`). */
  get anthropicUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  setScenario(name: string, scenario: Scenario): void {
    this.scenarios.set(name, scenario);
    this.served.set(name, 0);
  }

  /**
   * The most requests of a scenario that were open at one time (received, neither answered nor
   * cut off by the client): 1 means its calls never overlapped.
   */
  maxConcurrent(scenario: string): number {
    return this.mostOpen.get(scenario) ?? 0;
  }

  requestsFor(scenario: string): RecordedRequest[] {
    return this.requests.filter((r) => r.scenario === scenario);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const wire = req.url?.endsWith('/chat/completions') ? 'openai' : req.url?.endsWith('/v1/messages') ? 'anthropic' : undefined;
    if (req.method !== 'POST' || !wire) {
      return sendError(res, 404, `scripted model server: no route ${req.method} ${req.url}`);
    }
    let parsed: any;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return sendError(res, 400, 'scripted model server: request body is not JSON');
    }
    if (wire === 'anthropic') return this.handleAnthropic(req, res, parsed);
    const body = parsed;
    const scenario = String(body.model);
    const index = this.served.get(scenario) ?? 0;
    this.served.set(scenario, index + 1);
    this.requests.push({ scenario, index, body, wire: 'openai', raw: body, headers: req.headers, receivedAt: Date.now() });
    const nowOpen = (this.open.get(scenario) ?? 0) + 1;
    this.open.set(scenario, nowOpen);
    this.mostOpen.set(scenario, Math.max(nowOpen, this.mostOpen.get(scenario) ?? 0));
    res.once('close', () => this.open.set(scenario, (this.open.get(scenario) ?? 1) - 1));
    const script = this.scenarios.get(scenario);
    if (!script) return sendError(res, 500, `scripted model server: no scenario named "${scenario}"`);
    const scripted = typeof script === 'function' ? script(body, index, req.headers) : script[index];
    const step = scripted && followToolResult(scripted, body);
    if (!step) {
      return sendError(res, 500, `scripted model server: scenario "${scenario}" ran out of responses at request #${index + 1}`);
    }
    if (step.refuseMaxTokens && body.max_tokens !== undefined) {
      this.served.set(scenario, index);
      const message = "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.";
      return sendError(res, 400, message, undefined, 'max_tokens');
    }
    if (step.hang) return; // the socket stays open until the client gives up
    if (step.after) await step.after;
    if (step.delayMs) await new Promise((r) => setTimeout(r, step.delayMs));
    if (step.status) return sendError(res, step.status, step.errorMessage ?? `scripted error ${step.status}`, step.headers);
    if (body.stream && step.streamUnsupported) {
      return sendError(res, 400, 'streaming is not supported for this model', undefined, 'stream');
    }
    if (body.stream && step.streamError) return sendError(res, 500, step.streamError);
    const usage = cappedUsage(step.usage ?? estimateUsage(body, step), body.max_tokens ?? body.max_completion_tokens);
    if (body.stream) return streamAnswer(res, scenario, step, usage);
    res.writeHead(200, { 'content-type': 'application/json', ...step.headers });
    const answer = completion(scenario, step, usage);
    res.end(JSON.stringify(step.noUsage ? { ...answer, usage: undefined } : answer));
  }

  /** `POST /v1/messages`: the same scripts, in the Messages API's wire format. */
  private async handleAnthropic(req: http.IncomingMessage, res: http.ServerResponse, raw: any): Promise<void> {
    const body = chatBodyOf(raw);
    const scenario = String(raw.model);
    const index = this.served.get(scenario) ?? 0;
    this.served.set(scenario, index + 1);
    const record: RecordedRequest = { scenario, index, body, wire: 'anthropic', raw, headers: req.headers, receivedAt: Date.now() };
    this.requests.push(record);
    const nowOpen = (this.open.get(scenario) ?? 0) + 1;
    this.open.set(scenario, nowOpen);
    this.mostOpen.set(scenario, Math.max(nowOpen, this.mostOpen.get(scenario) ?? 0));
    res.once('close', () => this.open.set(scenario, (this.open.get(scenario) ?? 1) - 1));
    const script = this.scenarios.get(scenario);
    if (!script) return sendAnthropicError(res, 500, `scripted model server: no scenario named "${scenario}"`);
    const scripted = typeof script === 'function' ? script(body, index, req.headers) : script[index];
    const step = scripted && followToolResult(scripted, body);
    if (!step) return sendAnthropicError(res, 500, `scripted model server: scenario "${scenario}" ran out of responses at request #${index + 1}`);
    const altered = badThinkingBlock(raw);
    if (altered) return sendAnthropicError(res, 400, altered);
    if (step.hang) return;
    if (step.after) await step.after;
    if (step.delayMs) await new Promise((r) => setTimeout(r, step.delayMs));
    if (step.status) return sendAnthropicError(res, step.status, step.errorMessage ?? `scripted error ${step.status}`, step.headers);
    const usage = cappedUsage(step.usage ?? estimateUsage(body, step), raw.max_tokens);
    const input = step.usage ? { input_tokens: step.usage.prompt_tokens, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } : this.cache.use(scenario, raw);
    record.cache = input;
    const answer: AnthropicAnswer = {
      text: step.text ?? step.chunks?.join('') ?? '',
      chunks: step.chunks ?? splitText(step.text ?? ''),
      ...(step.reasoning ? { thinking: step.reasoning } : {}),
      toolCalls: toolCallsOf(step).map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })),
      ...(step.finishReason ? { finishReason: step.finishReason } : {}),
      outputTokens: usage.completion_tokens,
      input,
    };
    if (!raw.stream) {
      res.writeHead(200, { 'content-type': 'application/json', ...step.headers });
      return void res.end(JSON.stringify(anthropicMessage(scenario, answer)));
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...step.headers });
    if (step.noEvents) return void res.end();
    // `breakAfterChunks` counts the deltas, as a Chat Completions stream's chunks are counted.
    const limit = step.breakAfterChunks ?? Infinity;
    let deltas = 0;
    for (const event of anthropicEvents(scenario, answer, !step.noFinishReason)) {
      if (event.event === 'content_block_delta' && deltas++ >= limit) {
        await new Promise((r) => setTimeout(r, 50));
        res.socket?.destroy();
        return;
      }
      res.write(`event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`);
      await new Promise((r) => (step.chunkDelayMs ? setTimeout(r, step.chunkDelayMs) : setImmediate(r)));
    }
    res.end();
  }
}

/** The last `tool` message's text in a Chat Completions request, or undefined. */
export function lastToolResult(body: any): string | undefined {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const last = [...messages].reverse().find((m) => m?.role === 'tool');
  if (!last) return undefined;
  if (typeof last.content === 'string') return last.content;
  return Array.isArray(last.content) ? last.content.map((part: any) => (typeof part?.text === 'string' ? part.text : '')).join('') : undefined;
}

function followToolResult(step: ScriptStep, body: any): ScriptStep {
  const branch = step.ifLastToolResult;
  if (!branch) return step;
  const result = lastToolResult(body) ?? '';
  const chosen = new RegExp(branch.matches).test(result) ? branch.then : branch.otherwise;
  const firstLine = (result.split('\n').find((line) => line.trim()) ?? '(no output)').slice(0, 300);
  const fill = (text: string) => text.replaceAll('{{lastToolResult}}', firstLine);
  return followToolResult(
    { ...chosen, ...(chosen.text !== undefined ? { text: fill(chosen.text) } : {}), ...(chosen.chunks ? { chunks: chosen.chunks.map(fill) } : {}) },
    body,
  );
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (chunk: Buffer) => parts.push(chunk));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function sendError(res: http.ServerResponse, status: number, message: string, headers?: Record<string, string>, param?: string) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: param ?? null, code: null } }));
}

function sendAnthropicError(res: http.ServerResponse, status: number, message: string, headers?: Record<string, string>) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ type: 'error', error: { type: anthropicErrorType(status), message } }));
}

function estimateUsage(body: any, step: ScriptStep) {
  const prompt = Math.ceil(JSON.stringify(body.messages ?? []).length / 4);
  const completionTokens = Math.ceil(((step.text ?? '').length + JSON.stringify(step.toolCalls ?? []).length) / 4);
  return { prompt_tokens: prompt, completion_tokens: completionTokens };
}

function toolCallsOf(step: ScriptStep) {
  return (step.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_${i + 1}`,
    type: 'function' as const,
    function: {
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
    },
  }));
}

/** A provider never bills more output than the request's `max_tokens` allowed. */
function cappedUsage(usage: { prompt_tokens: number; completion_tokens: number }, maxTokens: unknown): { prompt_tokens: number; completion_tokens: number } {
  return typeof maxTokens === 'number' && usage.completion_tokens > maxTokens ? { ...usage, completion_tokens: maxTokens } : usage;
}

function completion(model: string, step: ScriptStep, usage: { prompt_tokens: number; completion_tokens: number }) {
  const toolCalls = toolCallsOf(step);
  return {
    id: 'chatcmpl-scripted',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: step.text ?? step.chunks?.join('') ?? null,
          ...(step.reasoning ? { [step.reasoningField ?? 'reasoning_content']: step.reasoning } : {}),
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: step.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop'),
      },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

function splitText(text: string): string[] {
  if (!text) return [];
  const size = Math.max(1, Math.ceil(text.length / 3));
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts;
}

async function streamAnswer(
  res: http.ServerResponse,
  model: string,
  step: ScriptStep,
  usage: { prompt_tokens: number; completion_tokens: number },
) {
  const toolCalls = toolCallsOf(step);
  const base = { id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
  const chunks: object[] = [];
  for (const thought of splitText(step.reasoning ?? '')) {
    chunks.push({ ...base, choices: [{ index: 0, delta: { [step.reasoningField ?? 'reasoning_content']: thought }, finish_reason: null }] });
  }
  for (const delta of step.chunks ?? splitText(step.text ?? '')) {
    chunks.push({ ...base, choices: [{ index: 0, delta: { content: delta }, finish_reason: null }] });
  }
  toolCalls.forEach((call, index) => {
    const args = call.function.arguments;
    const half = Math.ceil(args.length / 2);
    chunks.push({
      ...base,
      choices: [{ index: 0, delta: { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: args.slice(0, half) } }] }, finish_reason: null }],
    });
    chunks.push({
      ...base,
      choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: args.slice(half) } }] }, finish_reason: null }],
    });
  });
  if (!step.noFinishReason) {
    chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: step.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop') }] });
    if (!step.noUsage) chunks.push({ ...base, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } });
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...step.headers });
  if (step.noEvents) return void res.end();
  const limit = step.breakAfterChunks ?? Infinity;
  for (const [i, chunk] of chunks.entries()) {
    if (i >= limit) {
      // Let what was written reach the client first: the break comes after partial output.
      await new Promise((r) => setTimeout(r, 50));
      res.socket?.destroy();
      return;
    }
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    await new Promise((r) => (step.chunkDelayMs ? setTimeout(r, step.chunkDelayMs) : setImmediate(r)));
  }
  res.end('data: [DONE]\n\n');
}
