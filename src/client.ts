#!/usr/bin/env node
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { Command, CommanderError, Option } from 'commander';
import pc from 'picocolors';
import { visibleLines } from './common/visible-text';
import { InvalidEncryptionKey } from './codec/encryption-key';
import { PreflightError } from './doctor/run-doctor';
import { registerCancel } from './cli/commands/cancel';
import { registerCodecServer } from './cli/commands/codec-server';
import { demoCommand } from './cli/commands/demo';
import { registerDoctor } from './cli/commands/doctor';
import { registerEval } from './cli/commands/eval';
import { registerFollow } from './cli/commands/follow';
import { registerDiff } from './cli/commands/diff';
import { registerFork } from './cli/commands/fork';
import { registerHistory } from './cli/commands/history';
import { registerList } from './cli/commands/list';
import { registerMessage } from './cli/commands/message';
import { registerMessages } from './cli/commands/messages';
import { registerPatches } from './cli/commands/patches';
import { registerRewind } from './cli/commands/rewind';
import { decideCommand } from './cli/commands/permission';
import { runCommand } from './cli/commands/run';
import { registerSchedule } from './cli/commands/schedule';
import { serverCommand, serverStopCommand } from './cli/commands/server';
import { statusCommand } from './cli/commands/status';
import { registerUi } from './cli/commands/ui';
import { EXIT } from './runs/run-outcome';
import { UsageError } from './runs/usage-error';
import { packageVersion } from './connection/package-version';
import { notFoundMessage } from './cli/not-found';
import { LeftRunning } from './cli/left-running';
import { workerModule } from './cli/load-on-use';

/* eslint-disable @typescript-eslint/no-require-imports */
/** The protocol servers load their SDKs (MCP's, ACP's) only when their command runs: every other command would pay for them. */
const mcpModule = () => require('./mcp-server/mcp-command') as typeof import('./mcp-server/mcp-command');
const acpModule = () => require('./acp/acp-command') as typeof import('./acp/acp-command');
/* eslint-enable @typescript-eslint/no-require-imports */

const collect = (value: string, previous: string[] = []) => [...previous, value];

function runFlags(command: Command): Command {
  return command
    .option('-w, --workspace <dir>', 'directory the tools may touch', process.cwd())
    .option('-m, --model <name>', 'model name (default: BAREAGENT_MODEL on the worker)')
    .option('--system <text>', "system prompt, in place of the default coding agent's")
    .option('--append-system <text>', 'text added after the system prompt (the default or --system)')
    .addOption(new Option('--mode <mode>', 'permission mode').choices(['default', 'auto', 'plan', 'bypass']))
    .option('--allow <rule>', 'allow rule such as "bash(npm test*)" (repeatable)', collect)
    .option('--deny <rule>', 'deny rule such as "write_file(.env)" (repeatable)', collect)
    .option('--profile <name>', 'a model profile: small-local (a small local model: final_answer tool, plain paths attached, low temperature)')
    .addOption(new Option('--final-answer <how>', 'the final answer as a reply without a tool call (text, default) or a final_answer call (tool)').choices(['text', 'tool']))
    .addOption(new Option('--attach <which>', 'files the prompt mentions attached to it: @path only (at, default), plain paths too (plain), none (off)').choices(['at', 'plain', 'off']))
    .option('--max-iterations <n>', 'iteration limit (default 200)')
    .option('--max-tokens <n>', 'token budget: input plus output tokens of every model call')
    .option('--max-cost <usd>', 'cost budget in USD, priced from the model price table')
    .option('--max-wall-clock <duration>', 'time budget such as "30m" or "2h"')
    .option('--approval-timeout <duration>', 'deny a question nobody answers within this time (default 15m)')
    .option('--no-stream', 'call the model without streaming')
    .option('--no-project-instructions', "leave the workspace's AGENTS.md (or CLAUDE.md) out of the system prompt")
    .option('--trust-workspace', "apply the workspace's own hooks and MCP servers (.bareagent/) without asking at the run's start")
    .option('--network <choice>', 'what commands may reach: none (default), full, or a host allow-list "registry.npmjs.org,*.github.com"')
    .option('--read-path <dir>', 'a directory outside the workspace that commands may read, e.g. a package cache (repeatable)', collect)
    .option('--notify <url>', 'POST to this webhook when the run waits for a human (also: BAREAGENT_NOTIFY_WEBHOOK on the worker)')
    .option('--id <workflowId>', 'workflow id (default: generated)')
    .option('--json', 'print JSON lines for scripts');
}

async function main(argv: string[]): Promise<number> {
  let code: number = EXIT.ok;
  const set = (promise: Promise<number>) => promise.then((c) => void (code = c));
  const program = new Command('bareagent')
    .description('BareAgent on Temporal: every agent run is a durable Temporal workflow.')
    .version(packageVersion(), '-V, --version', 'print the version')
    // An unknown flag or command gets commander's one line and its "(Did you mean ...?)", not the
    // whole help: the help is one `--help` away.
    .showSuggestionAfterError(true)
    // Parse errors exit 2 like every other usage error (commander's own default is 1, "failed").
    .exitOverride()
    .addHelpText(
      'after',
      `
Environment: TEMPORAL_ADDRESS (default 127.0.0.1:7233; unset = embedded dev server), TEMPORAL_NAMESPACE,
BAREAGENT_TASK_QUEUE (default bareagent), BAREAGENT_UI_PORT (8233), BAREAGENT_HOME (~/.local/state/bareagent),
OPENAI_BASE_URL, OPENAI_API_KEY, BAREAGENT_MODEL (read by the worker), BAREAGENT_ENCRYPTION_KEY
(32 bytes, base64 or hex: encrypt every payload; the same key for worker, clients and codec-server).
Exit codes: 0 done, 1 the run failed, 2 bad usage or connection, 3 cancelled or terminated.
Each command has its own help and examples: bareagent <command> --help`,
    );

  runFlags(program.command('run').argument('<prompt>', 'what the agent should do'))
    .description('start a run and follow it here; starts the embedded server and a worker when none runs')
    .addHelpText(
      'after',
      `
With TEMPORAL_ADDRESS unset it starts the embedded dev server (left running, for the Web UI) and,
when no worker polls the task queue, a worker in this process. Permission questions are asked
inline when stdin is a terminal. Exit code: the run's outcome (0, 1 failed, 3 cancelled).

Examples:
  bareagent run "Find the failing test and fix it" -w ~/src/project
  bareagent run "Tidy the imports" --mode auto --allow "bash(npm test*)" --model gpt-4.1-mini
  bareagent run "Summarise the README" --json | jq -c 'select(.type == "tool_call")'`,
    )
    .action((prompt: string, flags) => set(runCommand(prompt, flags, 'run')));
  runFlags(program.command('start').argument('<prompt>', 'what the agent should do'))
    .option('-f, --follow', 'follow the run after starting it')
    .description('start a run on a running server and print its workflow id and Web UI link')
    .addHelpText(
      'after',
      `
Needs a server on TEMPORAL_ADDRESS and a worker (npm run worker); it returns at once.

Examples:
  bareagent start "Refactor the parser" -w ~/src/project --id parser-1
  bareagent start "Run the tests" --follow
  id=$(bareagent start "Update the deps" --json | jq -r .workflowId)`,
    )
    .action((prompt: string, flags) => set(runCommand(prompt, flags, 'start')));
  program
    .command('status')
    .argument('[workflowId]', 'a run; without it, every run that waits for a human')
    .option('--json', 'print JSON')
    .description("show a run's phase, iteration, usage and the permission requests it waits on")
    .addHelpText(
      'after',
      `
Examples:
  bareagent status fix-1
  bareagent status            # every open run waiting for a human, with how to answer
  bareagent status fix-1 --json | jq '.pendingPermissions'`,
    )
    .action((workflowId: string | undefined, flags) => set(statusCommand(workflowId, flags)));
  for (const [name, decision] of [
    ['approve', 'allow'],
    ['deny', 'deny'],
  ] as const) {
    const command = program
      .command(name)
      .argument('<workflowId>', 'the run')
      .argument('[requestId]', 'the request (default: the one the run waits on)')
      .option('-r, --reason <text>', 'why, recorded in the run')
      .option('--digest <sha256>', 'answer only if the question\'s input is the one with this digest (a webhook\'s commands carry it)')
      .option('--json', 'print JSON');
    if (decision === 'allow') {
      command
        .option('-a, --always', 'also allow matching calls for the rest of the run (the rule defaults to the call itself)')
        .option('--rule <rule>', 'with --always: the rule to allow, such as "bash(npm test*)"');
    }
    command
      .description(`${name} a pending permission request (the decidePermission update)`)
      .addHelpText(
        'after',
        `
The request id is the run's own id for the question (bareagent status lists them), never reused.
The question is shown first (on stderr, whole), and the answer holds only for that input: asked
again since, or about another input than --digest names, it is refused (exit 2), as is an unknown
or already decided request.

Examples:
  bareagent ${name} fix-1
  bareagent ${name} fix-1 3f9a2b1c-1 --reason "${decision === 'allow' ? 'fine on this branch' : 'not on main'}"${decision === 'allow' ? `
  bareagent approve fix-1 --always --rule "bash(npm test*)"   # and every later npm test of this run` : ''}`,
      )
      .action((workflowId: string, requestId: string | undefined, flags) => set(decideCommand(decision, workflowId, requestId, flags)));
  }
  registerFollow(program, set);
  registerMessage(program, set);
  registerCancel(program, set);
  registerList(program, set);
  registerHistory(program, set);
  registerPatches(program, set);
  registerMessages(program, set);
  registerSchedule(program, set, runFlags);
  registerFork(program, set);
  registerEval(program, set);
  registerDiff(program, set);
  registerRewind(program, set);
  const server = program
    .command('server')
    .description('start the embedded Temporal dev server (SQLite under BAREAGENT_HOME, Web UI on BAREAGENT_UI_PORT); `server stop` stops the one runs left in the background')
    .addHelpText(
      'after',
      `
Serves gRPC on the port of TEMPORAL_ADDRESS (default 7233) with BareAgent's search attributes
registered; reuses a Temporal server that already answers there. BAREAGENT_UI_CODEC_ENDPOINT points
its Web UI at a codec server (see codec-server). Ctrl-C stops it.

\`run\`, \`demo\` and \`eval\` start the same server in the background when none answers, and leave
it running (for the Web UI); \`bareagent server stop\` stops that one, by the pid it recorded under
BAREAGENT_HOME (never by name).

Examples:
  bareagent server
  bareagent server stop
  TEMPORAL_ADDRESS=127.0.0.1:7244 BAREAGENT_UI_PORT=8244 bareagent server`,
    )
    .action(() => set(serverCommand()));
  server
    .command('stop')
    .description('stop the dev server that run, demo or eval left running in the background (by its recorded pid)')
    .action(() => set(serverStopCommand()));
  program
    .command('worker')
    .description('run a worker on BAREAGENT_TASK_QUEUE; tools run in each run\'s workspace on this machine')
    .addHelpText(
      'after',
      `
Reads OPENAI_BASE_URL, OPENAI_API_KEY and BAREAGENT_MODEL (the keys never enter workflow history),
and BAREAGENT_ENCRYPTION_KEY to encrypt payloads.

Examples:
  OPENAI_API_KEY=sk-... BAREAGENT_MODEL=gpt-4.1-mini bareagent worker
  TEMPORAL_ADDRESS=temporal.internal:7233 BAREAGENT_TASK_QUEUE=build-box bareagent worker`,
    )
    .action(() => set(workerModule().runWorker().then(() => 0)));
  program
    .command('demo')
    .description('run a scripted-model demo session on a copy of a sample workspace')
    .option('--no-sandbox', 'run the demo\'s commands UNCONFINED (when bubblewrap cannot start here; bareagent doctor says why)')
    .addHelpText('after', '\nChecks the sandbox first (as bareagent doctor does) and stops with the fix when it cannot start.\n\nExamples:\n  bareagent demo      # = npm run demo\n  npm run demo -- --no-sandbox')
    .action((flags: { sandbox: boolean }) => set(demoCommand({ sandbox: flags.sandbox })));
  registerCodecServer(program, set);
  registerUi(program, set);
  registerDoctor(program, set);
  program
    .command('mcp')
    .description('serve MCP on stdio: tools that start, follow, answer and collect durable runs (for other agents)')
    .addHelpText(
      'after',
      `
Needs a server on TEMPORAL_ADDRESS and a worker (bareagent worker). Tools: start_run, run_events,
answer_permission, send_message, run_result. The runs go on when the client or this server ends.

Examples:
  TEMPORAL_ADDRESS=127.0.0.1:7233 bareagent mcp
  an MCP client's configuration: { "mcpServers": { "bareagent": { "command": "bareagent", "args": ["mcp"] } } }`,
    )
    .action(() => set(mcpModule().mcpCommand()));
  program
    .command('acp')
    .option('-m, --model <name>', "model of every session's run (default: BAREAGENT_MODEL on the worker)")
    .addOption(new Option('--mode <mode>', "permission mode of every session's run").choices(['default', 'auto', 'plan', 'bypass']))
    .description('serve the Agent Client Protocol on stdio: editors (Zed, JetBrains, Neovim) drive durable runs, a session per run')
    .addHelpText(
      'after',
      `
Needs a server on TEMPORAL_ADDRESS and a worker (bareagent worker). A session's id is its run's
workflow id: the run goes on when the editor closes, and session/load picks it up again.

Examples:
  TEMPORAL_ADDRESS=127.0.0.1:7233 bareagent acp
  Zed's settings.json: { "agent_servers": { "BareAgent": { "command": "bareagent", "args": ["acp"] } } }`,
    )
    .action((flags: { model?: string; mode?: string }) => set(acpModule().acpCommand(flags)));

  await program.parseAsync(argv);
  return code;
}

// `bareagent list | head`: a reader that closed the pipe has what it wanted; no stack trace for it.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(EXIT.ok);
    throw err;
  });
}

main(process.argv)
  .then((code) => process.exit(code))
  .catch((err: unknown) => {
    // Every message is shown through visibleLines: an error can quote a file name, a tool's input or a server's words.
    // Commander printed the message (or the help) already.
    if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? EXIT.ok : EXIT.usage);
    // Ctrl-C at a question: the lines printed say how to reach the run, which goes on.
    if (err instanceof LeftRunning) process.exit(130);
    if (err instanceof PreflightError) console.error(err.message);
    else if (err instanceof WorkflowNotFoundError) console.error(pc.red(visibleLines(notFoundMessage(err))));
    else if (err instanceof UsageError || err instanceof InvalidEncryptionKey) console.error(pc.red(visibleLines(err.message)));
    else if (err instanceof Error && /binary\/encrypted/.test(err.message)) {
      console.error(pc.red(`This run's payloads are encrypted: set BAREAGENT_ENCRYPTION_KEY to the key its worker uses. (${visibleLines(err.message)})`));
    }
    else if (err instanceof WorkflowUpdateFailedError) console.error(pc.red(`Refused: ${visibleLines(err.cause?.message ?? err.message)}`));
    // Expected failures (a taken port, no connection) read best as one message; BAREAGENT_DEBUG=1 shows the stack.
    else if (err instanceof Error) console.error(pc.red(visibleLines(process.env.BAREAGENT_DEBUG ? (err.stack ?? err.message) : err.message)));
    else console.error(pc.red(visibleLines(String(err))));
    process.exit(EXIT.usage);
  });
