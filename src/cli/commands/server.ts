import pc from 'picocolors';
import { connectionFromEnv, uiPortFromEnv } from '../../connection/config';
import { ensureDevServer } from '../../server/dev-server';
import { bareagentHome } from '../local-stack';
import { oldHomeNotice } from '../old-home-notice';

/** `bareagent server` / `npm run server`: the embedded dev server in the foreground; Ctrl-C stops it. */
export async function serverCommand(): Promise<number> {
  const { address } = connectionFromEnv();
  const home = bareagentHome();
  for (const line of oldHomeNotice(home)) console.error(pc.yellow(line));
  const server = await ensureDevServer({ address, uiPort: uiPortFromEnv(), home, log: (line) => console.error(pc.dim(line)) });
  if (server.reused) {
    console.log(`A Temporal server already answers on ${address}; nothing to start.`);
    return 0;
  }
  console.log(`Temporal dev server: ${address}  ·  Web UI: ${server.uiUrl}  ·  data: ${home}/temporal.sqlite`);
  console.log(pc.dim('Ctrl-C stops it.'));
  const stop = async () => {
    console.error(pc.dim('\nStopping the Temporal dev server...'));
    await server.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  await new Promise<void>((resolve) => server.process?.once('exit', () => resolve()));
  console.error(pc.red('The Temporal dev server exited.'));
  return 1;
}
