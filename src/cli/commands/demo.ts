import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pc from 'picocolors';
import { preflight, PreflightError, runUnconfined } from '../../doctor/run-doctor';
import { ScriptedModelServer } from '../../testing/scripted-model-server';
import { cachedWorkflowBundle } from '../../worker/cached-bundle';
import type { Client } from '@temporalio/client';
import { diffText } from '../../checkpoints/diff';
import { diffRedactor } from '../../checkpoints/redaction';
import { eventsQuery } from '../../common/contract';
import type { RunEvent } from '../../common/events';
import { runUiLink, WORKFLOW_TYPE } from '../../connection/config';
import { isPending, sendDecision } from '../../runs/decisions';
import { openStack } from '../local-stack';
import { localWorkerModule } from '../load-on-use';
import { readRunCheckpoints, snapshotAt } from '../run-checkpoints';
import { EXIT, exitCodeOf } from '../../runs/run-outcome';
import { newWorkflowId } from '../../runs/run-labels';
import { watchRun } from '../watch-run';
import { visibleDiff } from './diff';

const DEMO_DIR = path.resolve(__dirname, '../../../demo');
/** A clone runs the TypeScript sources; the installed package, their compiled JavaScript (dist/). */
const FROM_A_CLONE = __filename.endsWith('.ts');
const PROMPT = 'Find the TODO in this project, fix it, and run the test.';
/** With no terminal to ask in, how long the demo's question waits for an answer from elsewhere before the demo allows it itself. */
export const UNATTENDED_ANSWER_MS = 2_000;

/**
 * `npm run demo`: a real durable run on the embedded server, on a fresh copy of a small sample
 * workspace; only the model's turns are scripted (a local OpenAI-compatible server), and the last
 * one follows what `node test.js` returned. `node test.js` is not pre-allowed: the run asks, in
 * this terminal (or, with no terminal, says how to answer and allows it itself after a few
 * seconds). At the end: the diff of what the agent changed, what to try next, and how to stop the
 * server it leaves running; the copy of the workspace is removed. The sandbox is checked first: a
 * demo whose commands cannot run stops with the doctor's fix, unless `--no-sandbox` says to run
 * them unconfined.
 */
export async function demoCommand(options: { sandbox: boolean } = { sandbox: true }): Promise<number> {
  if (!options.sandbox) {
    runUnconfined();
    console.error(pc.bold(pc.red('--no-sandbox: the demo\'s commands (node test.js) run UNCONFINED, with your user\'s files and network. Only the sample project is touched.')));
  }
  try {
    await preflight('npm run demo', { cli: true, sandbox: options.sandbox, tests: false, postgres: false });
  } catch (err) {
    if (!(err instanceof PreflightError)) throw err;
    console.error(err.message);
    console.error(pc.bold('Fix the above, or run the demo without the sandbox (its commands then run unconfined): npm run demo -- --no-sandbox'));
    return EXIT.usage;
  }
  console.log(pc.bold(pc.yellow('DEMO: the model\'s turns are scripted (a local fake model server); the workflow, the tools and the server are real.')));
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'bareagent-demo-'));
  cpSync(path.join(DEMO_DIR, 'workspace'), workspace, { recursive: true });
  const model = await ScriptedModelServer.start(ScriptedModelServer.loadScenarios(path.join(DEMO_DIR, 'scenario.json')));
  // The workflow code is bundled while the server starts (the first time; later demos load the
  // cached bundle): each takes seconds, and they wait on different things.
  const bundling = cachedWorkflowBundle().then((codePath) => ({ codePath }), () => undefined);
  const stack = await openStack({ embedded: true, embedLoopback: true, background: true, log: (line) => console.error(pc.dim(line)) });
  // Its own task queue: a worker already polling `bareagent` would call a real model instead.
  const taskQueue = `bareagent-demo-${process.pid}`;
  const bundle = await bundling;
  const worker = await localWorkerModule().startLocalWorker(stack.config, taskQueue, { baseURL: model.url, requestTimeoutMs: 30_000 }, undefined, bundle);
  try {
    const workflowId = newWorkflowId().replace('bareagent-', 'bareagent-demo-');
    await stack.client.workflow.start(WORKFLOW_TYPE, {
      taskQueue,
      workflowId,
      staticSummary: PROMPT,
      args: [{ prompt: PROMPT, model: 'demo', workspace, permissionMode: 'default' }],
    });
    console.error(pc.dim(`Workspace (a copy of demo/workspace, removed at the end): ${workspace}`));
    console.error(pc.dim(`Prompt: ${PROMPT}\n`));
    // The demo's own worker still polls the run's queue when it closes: it answers the last
    // events query at once, where a general follower would start (and bundle) a query worker.
    const handle = stack.client.workflow.getHandle(workflowId);
    const catchUp = (from: number) => handle.query(eventsQuery, from);
    const interactive = process.stdin.isTTY === true;
    const defaults = new UnattendedAnswers(stack.client);
    const outcome = await watchRun(stack.client, workflowId, { interactive, json: false, catchUp, unattended: (target, event) => defaults.allowLater(target, event) }).finally(() => defaults.cancel());
    const link = runUiLink(stack.uiPort, stack.config.namespace, workflowId);
    console.log(pc.bold(pc.yellow('(The model\'s turns above were scripted.)')));
    await showChanges(stack.client, workflowId);
    console.error(nextSteps(workflowId, link, stack.server !== undefined && !stack.server.reused));
    return exitCodeOf(outcome);
  } finally {
    await worker.stop();
    await stack.close();
    await model.close();
    rmSync(workspace, { recursive: true, force: true });
  }
}

/**
 * With no terminal to answer in: the question waits a few seconds for an answer from another
 * shell (`bareagent approve`, the page), then the demo allows it itself, and says so.
 */
class UnattendedAnswers {
  private readonly timers = new Set<NodeJS.Timeout>();
  constructor(private readonly client: Client) {}

  allowLater(target: string, event: Extract<RunEvent, { type: 'permission_request' }>): void {
    console.error(pc.yellow(`  No terminal to ask in (stdin is not a TTY): the demo allows this itself in ${UNATTENDED_ANSWER_MS / 1000} s unless it is answered first.`));
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void (async () => {
        if (!(await isPending(this.client, target, event.requestId).catch(() => false))) return;
        console.error(pc.yellow(`  Allowed by the demo's default (nobody answered in ${UNATTENDED_ANSWER_MS / 1000} s).`));
        await sendDecision(this.client, target, { requestId: event.requestId, decision: 'allow', reason: "allowed by the demo's default: no terminal to ask in" });
      })().catch((err: Error) => console.error(pc.red(`  The demo could not answer: ${err.message}`)));
    }, UNATTENDED_ANSWER_MS);
    this.timers.add(timer);
  }

  cancel(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

/** What the agent changed in the workspace, from the run's checkpoints (`bareagent diff`). */
async function showChanges(client: Client, workflowId: string): Promise<void> {
  try {
    const { view } = await readRunCheckpoints(client, workflowId);
    const from = snapshotAt(view, 0);
    const to = snapshotAt(view, view.lastStep);
    const text = from.id === to.id ? '' : diffRedactor().redact(await diffText(view.store, from.id, to.id, false));
    console.log(pc.bold(`\nWhat the agent changed (bareagent diff ${workflowId}):`));
    if (text === '') return console.log('  no file changed');
    const colour = (line: string) => (line.startsWith('+++') || line.startsWith('---') ? pc.bold(line) : line.startsWith('+') ? pc.green(line) : line.startsWith('-') ? pc.red(line) : line.startsWith('@@') ? pc.cyan(line) : line);
    console.log(visibleDiff(text).replace(/\n$/, '').split('\n').map(colour).join('\n'));
  } catch (err) {
    console.error(pc.dim(`(The diff could not be read: ${(err as Error).message})`));
  }
}

export function nextSteps(workflowId: string, webUi: string, serverStarted: boolean): string {
  return [
    '',
    pc.bold('Next:'),
    `  With a real model: OPENAI_API_KEY=sk-... bareagent run "Fix the failing test" --workspace ./my-project --model gpt-4.1-mini`,
    `    (any OpenAI-compatible endpoint: OPENAI_BASE_URL=http://127.0.0.1:8080/v1; bareagent doctor --model checks it)`,
    `  The approvers' page: bareagent ui (questions answered from a browser; this run at /runs/${workflowId})`,
    `  Web UI: ${webUi} (every model call and tool call of this run)`,
    `  This run again: bareagent history ${workflowId} · bareagent diff ${workflowId}`,
    serverStarted
      ? `  The Temporal server keeps running in the background (for the Web UI and your next runs); stop it with: bareagent server stop`
      : `  The Temporal server was running before the demo and still is (bareagent server stop stops one that bareagent started in the background).`,
    ...(FROM_A_CLONE ? [pc.dim(`  (\`bareagent\` is this clone's CLI: \`npm link\` puts it on PATH, or run \`npx tsx src/client.ts ...\`.)`)] : []),
  ].join('\n');
}
