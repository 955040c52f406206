import { cpSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import pc from 'picocolors';
import { preflight, PreflightError, runUnconfined } from '../../doctor/run-doctor';
import { ScriptedModelServer } from '../../testing/scripted-model-server';
import { bundleOptions } from '../../worker/create-worker';
import { warningsOnlyLogger } from '../../worker/warnings-only-logger';
import { eventsQuery } from '../../common/contract';
import { runUiLink, WORKFLOW_TYPE } from '../../connection/config';
import { openStack, startLocalWorker } from '../local-stack';
import { EXIT, exitCodeOf } from '../run-outcome';
import { newWorkflowId } from '../run-input';
import { watchRun } from '../watch-run';

const DEMO_DIR = path.resolve(__dirname, '../../../demo');
const PROMPT = 'Find the TODO in this project, fix it, and run the test.';

/**
 * `npm run demo`: a real durable run on the embedded server, on a fresh copy of a small sample
 * workspace; only the model's turns are scripted (a local OpenAI-compatible server), and the last
 * one follows what `node test.js` returned. The sandbox is checked first: a demo whose commands
 * cannot run stops with the doctor's fix, unless `--no-sandbox` says to run them unconfined.
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
  // The workflow code is bundled while the server starts (and, on a new machine, the CLI is fetched):
  // each takes seconds, and they wait on different things.
  const bundling = bundleWorkflowCode({ ...bundleOptions(), logger: warningsOnlyLogger }).catch(() => undefined);
  const stack = await openStack({ embedded: true, embedLoopback: true, background: true, log: (line) => console.error(pc.dim(line)) });
  // Its own task queue: a worker already polling `bareagent` would call a real model instead.
  const taskQueue = `bareagent-demo-${process.pid}`;
  const bundle = await bundling;
  const worker = await startLocalWorker(stack.config, taskQueue, { baseURL: model.url, requestTimeoutMs: 30_000 }, undefined, bundle && { code: bundle.code });
  try {
    const workflowId = newWorkflowId().replace('bareagent-', 'bareagent-demo-');
    await stack.client.workflow.start(WORKFLOW_TYPE, {
      taskQueue,
      workflowId,
      staticSummary: PROMPT,
      args: [{ prompt: PROMPT, model: 'demo', workspace, permissionRules: { allow: ['bash(node test.js)'] } }],
    });
    console.error(pc.dim(`Workspace: ${workspace}`));
    console.error(pc.dim(`Prompt: ${PROMPT}\n`));
    // The demo's own worker still polls the run's queue when it closes: it answers the last
    // events query at once, where a general follower would start (and bundle) a query worker.
    const handle = stack.client.workflow.getHandle(workflowId);
    const catchUp = (from: number) => handle.query(eventsQuery, from);
    const outcome = await watchRun(stack.client, workflowId, { interactive: false, json: false, catchUp });
    const link = runUiLink(stack.uiPort, stack.config.namespace, workflowId);
    console.error(pc.dim(`\nSee every model call and tool call of this run in the Web UI: ${link}`));
    console.log(pc.bold(pc.yellow('(The model\'s turns above were scripted.)')));
    return exitCodeOf(outcome);
  } finally {
    await worker.stop();
    await stack.close();
    await model.close();
  }
}
