import { startLocalModelServer } from './local-model';

/** `npm run local-model`: builds what is missing, serves the local model until Ctrl-C. */
async function main() {
  const server = await startLocalModelServer();
  console.log(`OPENAI_BASE_URL=${server.baseURL} BAREAGENT_MODEL=${server.model} OPENAI_API_KEY=local`);
  const stop = () => void server.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
