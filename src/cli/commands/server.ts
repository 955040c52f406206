import pc from 'picocolors';
import { connectionFromEnv, uiPortFromEnv } from '../../connection/config';
import { ensureDevServer } from '../../server/dev-server';
import { stopRecordedServer } from '../../server/server-stop';
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

/**
 * `bareagent server stop`: the dev server that `run`, `demo` or `eval` started in the background,
 * by the pid it recorded under BAREAGENT_HOME (checked to still be that server), never by name.
 */
export async function serverStopCommand(): Promise<number> {
  const home = bareagentHome();
  const outcome = await stopRecordedServer(home);
  switch (outcome.kind) {
    case 'stopped':
      console.log(`Stopped the Temporal dev server (pid ${outcome.pid})${outcome.forced ? ', killed after it did not stop in 10 s' : ''}. Its runs are kept in ${home}/temporal.sqlite.`);
      return 0;
    case 'none':
      console.log(`No Temporal server started by bareagent runs in the background here (no ${outcome.pidFile}).`);
      console.log(pc.dim('A server started with `bareagent server` stops with Ctrl-C in its terminal; one started otherwise is stopped where it was started.'));
      return 1;
    case 'stale':
      console.log(`No Temporal server started by bareagent is running: ${outcome.pidFile} named pid ${outcome.pid}, but ${outcome.why}. Left it alone and removed the record.`);
      return 1;
  }
}
