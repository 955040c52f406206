import { startLocalModelServer, type LocalModelServer } from './local-model';

/**
 * `npm run local-model [-- --parallel N --threads N --context N]`: fetches what is missing,
 * serves the local model until Ctrl-C or SIGTERM (to this process, or to the server's own pid, which
 * it prints). An idle server still spins a core: stop it when done.
 * `npm run local-model -- --check`: fetches, starts, asks one tiny question, stops it by SIGTERM; exits 1 with
 * the reason when any of that fails (CI gates on it: the model's choices may vary, its plumbing may not).
 */
async function main() {
  const args = process.argv.slice(2);
  const flag = (name: string): number | undefined => {
    const at = args.indexOf(`--${name}`);
    if (at < 0) return undefined;
    const value = Number(args[at + 1]);
    if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a whole number, 1 or more`);
    return value;
  };
  const parallel = flag('parallel');
  const threads = flag('threads');
  const contextTokens = flag('context');
  const started = Date.now();
  const server = await startLocalModelServer({
    ...(parallel ? { parallel } : {}),
    ...(threads ? { threads } : {}),
    ...(contextTokens ? { contextTokens } : {}),
  });
  if (args.includes('--check')) return check(server, Date.now() - started);
  console.log(`OPENAI_BASE_URL=${server.baseURL} BAREAGENT_MODEL=${server.model} OPENAI_API_KEY=local`);
  console.error(`llama.cpp server pid ${server.pid}, this process ${process.pid}: Ctrl-C or \`kill ${process.pid}\` stops both`);
  const stop = () => void server.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

async function check(server: LocalModelServer, readyMs: number): Promise<void> {
  const asked = Date.now();
  try {
    const response = await fetch(`${server.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: server.model, messages: [{ role: 'user', content: 'Say OK.' }], max_tokens: 4, temperature: 0 }),
      signal: AbortSignal.timeout(300_000),
    });
    const body = (await response.json()) as { choices?: { message?: { content?: string } }[] };
    if (!response.ok || !Array.isArray(body.choices)) throw new Error(`${server.baseURL}/chat/completions answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
    const stopping = Date.now();
    // Stopped by its own pid, on SIGTERM: a server that needed the SIGKILL would linger wherever no one kills it.
    const ended = await server.stop();
    if (ended !== 'exit 0') throw new Error(`the server did not stop on SIGTERM (it ended by ${ended})`);
    console.log(
      `local model: server ready in ${(readyMs / 1000).toFixed(1)} s, one request answered in ${((stopping - asked) / 1000).toFixed(1)} s, stopped on SIGTERM in ${Date.now() - stopping} ms`,
    );
  } finally {
    await server.stop();
  }
}

main().catch((err) => {
  console.error(`local model: ${err instanceof Error ? err.message : err}`);
  process.exit(1);
});
