#!/usr/bin/env node
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { Command, Option } from 'commander';
import pc from 'picocolors';
import { demoCommand } from './cli/commands/demo';
import { decideCommand } from './cli/commands/permission';
import { runCommand } from './cli/commands/run';
import { serverCommand } from './cli/commands/server';
import { statusCommand } from './cli/commands/status';
import { EXIT } from './cli/run-outcome';
import { UsageError } from './cli/run-input';
import { runWorker } from './worker';

const collect = (value: string, previous: string[] = []) => [...previous, value];

function runFlags(command: Command): Command {
  return command
    .option('-w, --workspace <dir>', 'directory the tools may touch', process.cwd())
    .option('-m, --model <name>', 'model name (default: BAREAGENT_MODEL on the worker)')
    .option('--system <text>', 'system prompt')
    .addOption(new Option('--mode <mode>', 'permission mode').choices(['default', 'auto', 'plan', 'bypass']))
    .option('--allow <rule>', 'allow rule such as "bash(npm test*)" (repeatable)', collect)
    .option('--deny <rule>', 'deny rule such as "write_file(.env)" (repeatable)', collect)
    .option('--max-iterations <n>', 'iteration limit (default 200)')
    .option('--approval-timeout <duration>', 'deny a question nobody answers within this time (default 15m)')
    .option('--no-stream', 'call the model without streaming')
    .option('--id <workflowId>', 'workflow id (default: generated)')
    .option('--json', 'print JSON lines for scripts');
}

async function main(argv: string[]): Promise<number> {
  let code: number = EXIT.ok;
  const set = (promise: Promise<number>) => promise.then((c) => void (code = c));
  const program = new Command('bareagent')
    .description('BareAgent on Temporal: every agent run is a durable Temporal workflow.')
    .showHelpAfterError()
    .addHelpText(
      'after',
      `
Environment: TEMPORAL_ADDRESS (default 127.0.0.1:7233; unset = embedded dev server), TEMPORAL_NAMESPACE,
BAREAGENT_TASK_QUEUE (default bareagent), BAREAGENT_UI_PORT (8233), BAREAGENT_HOME (.bareagent),
OPENAI_BASE_URL, OPENAI_API_KEY, BAREAGENT_MODEL (read by the worker).
Exit codes: 0 done, 1 the run failed, 2 bad usage or connection, 3 cancelled or terminated.`,
    );

  runFlags(program.command('run').argument('<prompt>', 'what the agent should do'))
    .description('start a run and follow it here; starts the embedded server and a worker when none runs')
    .action((prompt: string, flags) => set(runCommand(prompt, flags, 'run')));
  runFlags(program.command('start').argument('<prompt>', 'what the agent should do'))
    .option('-f, --follow', 'follow the run after starting it')
    .description('start a run on a running server and print its workflow id and Web UI link')
    .action((prompt: string, flags) => set(runCommand(prompt, flags, 'start')));
  program
    .command('status')
    .argument('[workflowId]', 'a run; without it, every run that waits for a human')
    .option('--json', 'print JSON')
    .description("show a run's phase, iteration, usage and the permission requests it waits on")
    .action((workflowId: string | undefined, flags) => set(statusCommand(workflowId, flags)));
  for (const [name, decision] of [
    ['approve', 'allow'],
    ['deny', 'deny'],
  ] as const) {
    program
      .command(name)
      .argument('<workflowId>', 'the run')
      .argument('[requestId]', 'the request (default: the one the run waits on)')
      .option('-r, --reason <text>', 'why, recorded in the run')
      .option('--json', 'print JSON')
      .description(`${name} a pending permission request (the decidePermission update)`)
      .action((workflowId: string, requestId: string | undefined, flags) => set(decideCommand(decision, workflowId, requestId, flags)));
  }
  program
    .command('server')
    .description('start the embedded Temporal dev server (SQLite under BAREAGENT_HOME, Web UI on BAREAGENT_UI_PORT)')
    .action(() => set(serverCommand()));
  program
    .command('worker')
    .description('run a worker on BAREAGENT_TASK_QUEUE; tools run in each run\'s workspace on this machine')
    .action(() => set(runWorker().then(() => 0)));
  program
    .command('demo')
    .description('run a scripted-model demo session on a copy of a sample workspace')
    .action(() => set(demoCommand()));

  await program.parseAsync(argv);
  return code;
}

main(process.argv)
  .then((code) => process.exit(code))
  .catch((err: unknown) => {
    if (err instanceof UsageError || err instanceof WorkflowNotFoundError) console.error(pc.red(err.message));
    else if (err instanceof WorkflowUpdateFailedError) console.error(pc.red(`Refused: ${err.cause?.message ?? err.message}`));
    else console.error(pc.red(err instanceof Error ? (err.stack ?? err.message) : String(err)));
    process.exit(EXIT.usage);
  });
