import { startLocalModelServer } from './local-model';

/**
 * `npm run local-model [-- --parallel N --threads N --context N]`: fetches what is missing,
 * serves the local model until Ctrl-C. An idle server still spins a core: stop it when done.
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
  const server = await startLocalModelServer({
    ...(parallel ? { parallel } : {}),
    ...(threads ? { threads } : {}),
    ...(contextTokens ? { contextTokens } : {}),
  });
  console.log(`OPENAI_BASE_URL=${server.baseURL} BAREAGENT_MODEL=${server.model} OPENAI_API_KEY=local`);
  const stop = () => void server.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
