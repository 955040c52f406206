/**
 * Restate: a service handler runs the AI SDK's generateText with the model wrapped in Restate's
 * durableCalls middleware (each model response journaled) and the tool in ctx.run (each result
 * journaled), as Restate's agent examples write it. The invocation is sent with an idempotency key:
 * after a kill, the endpoint comes back on the same port, restate-server retries the invocation
 * and replays its journal, and sending the same request again attaches to it.
 */
import http2 from 'node:http2';
import * as restate from '@restatedev/restate-sdk';
import { durableCalls } from '@restatedev/vercel-ai-middleware';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { z } from 'zod';
import { PROMPT, SYSTEM, TOOL_DESCRIPTION, TURNS, peerEnv, readWorkspaceFile, runAll } from '../task';

// The SDK uses Promise.withResolvers, which Node.js has from 22 on; this machine has Node 20.
(Promise as unknown as { withResolvers?: unknown }).withResolvers ??= function withResolvers<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
};

const env = peerEnv();
const provider = createOpenAICompatible({ name: 'scripted', baseURL: env.modelUrl, apiKey: 'scripted' });

const agent = restate.service({
  name: 'agent',
  handlers: {
    run: async (ctx: restate.Context, request: { runId: string; prompt: string }): Promise<string> => {
      const model = wrapLanguageModel({ model: provider(request.runId), middleware: durableCalls(ctx, { maxRetryAttempts: 3 }) });
      const { text } = await generateText({
        model,
        system: SYSTEM,
        prompt: request.prompt,
        tools: {
          read_file: tool({
            description: TOOL_DESCRIPTION,
            inputSchema: z.object({ file_path: z.string() }),
            execute: async ({ file_path }) => ctx.run('read_file', () => readWorkspaceFile(env.workspace, file_path)),
          }),
        },
        stopWhen: [stepCountIs(TURNS + 5)],
        maxRetries: 0,
      });
      return text;
    },
  },
});

async function main(): Promise<void> {
  const endpoint = `http://127.0.0.1:${env.restateEndpointPort}`;
  // restate.serve listens on every interface: the same handler on an HTTP/2 server on loopback.
  const server = http2.createServer(restate.createEndpointHandler({ services: [agent] }));
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(env.restateEndpointPort, '127.0.0.1', resolve));
  const registered = await fetch(`${env.restateAdmin}/deployments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ uri: endpoint, force: true }),
  });
  if (!registered.ok) throw new Error(`registering ${endpoint}: ${registered.status} ${await registered.text()}`);
  await runAll(async (env, runId) => {
    // The same request with the same idempotency key starts the run, or attaches to it after a restart.
    const res = await fetch(`${env.restateIngress}/agent/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': runId },
      body: JSON.stringify({ runId, prompt: PROMPT }),
    });
    if (!res.ok) throw new Error(`${runId}: ${res.status} ${await res.text()}`);
    return { answer: (await res.json()) as string };
  });
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
