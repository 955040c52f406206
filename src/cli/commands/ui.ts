import type { Command } from 'commander';
import pc from 'picocolors';
import { bareagentHome } from '../../connection/home';
import { uiServerModule } from '../load-on-use';
import { uiSettingsFromEnv } from '../../connection/ui-settings';
import { loadUiToken } from '../../ui/ui-token';
import { openStack } from '../local-stack';
import { startCheckedRun } from '../start-run';

/** A run started over AG-UI stays open this long after each answer for the thread's next message. */
const AG_UI_IDLE = '2h';

/**
 * `bareagent ui`: the approvers' page on BAREAGENT_UI_ADDR (loopback by default), connected to
 * Temporal like every other command (same address, namespace and data converter). Runs until
 * Ctrl-C.
 */
export async function uiCommand(): Promise<number> {
  const settings = uiSettingsFromEnv();
  const token = loadUiToken(bareagentHome());
  const stack = await openStack({ embedded: false, log: () => undefined });
  try {
    const server = await uiServerModule().startUiServer({
      ...settings,
      client: stack.client,
      token: token.token,
      taskQueue: stack.config.taskQueue,
      temporalUiPort: stack.uiPort,
      startRun: async (prompt, run) => {
        await startCheckedRun(stack.client, stack.config, prompt, { workspace: run.workspace, id: run.workflowId, idleTimeout: AG_UI_IDLE, ...(run.model ? { model: run.model } : {}), ...(run.mode ? { mode: run.mode } : {}) });
      },
      log: (line) => console.error(pc.dim(line)),
    });
    const base = settings.publicUrl ? settings.publicUrl.toString().replace(/\/$/, '') : server.url;
    console.log(`Approvers' page on ${server.url} (namespace ${stack.config.namespace} at ${stack.config.address})`);
    if (token.created) {
      console.log(`Sign in once with this link (it sets a cookie; the token is kept in ${token.file}, readable by you only):`);
      console.log(`  ${base}/?token=${token.token}`);
    } else {
      console.log(pc.dim(`The token is in ${token.file ?? 'BAREAGENT_UI_TOKEN'}: sign in with ${base}/?token=<token>`));
    }
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await server.close();
    return 0;
  } finally {
    await stack.close();
  }
}

export function registerUi(program: Command, settle: (code: Promise<number>) => Promise<void>): void {
  program
    .command('ui')
    .description("serve the approvers' page: runs waiting for a human, the conversation live, answers in one click")
    .addHelpText(
      'after',
      `
Listens on BAREAGENT_UI_ADDR (default 127.0.0.1:8780). Every request needs the token: the login
link printed at the first start sets a cookie, or send Authorization: Bearer <token>. The token is
made once and kept in BAREAGENT_HOME/ui-token (mode 0600); BAREAGENT_UI_TOKEN overrides it.
Behind a reverse proxy, set BAREAGENT_UI_URL to the address approvers use (its host is then
accepted, and a worker with the same variable puts a link to the run's page in its webhooks).

Examples:
  bareagent ui
  BAREAGENT_UI_ADDR=0.0.0.0:8780 BAREAGENT_UI_URL=https://approve.example.com bareagent ui`,
    )
    .action(() => settle(uiCommand()));
}
