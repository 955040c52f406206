/**
 * Vercel Workflow (`workflow` with `@workflow/world-local`): workflows/vercel-workflow.ts, a "use
 * workflow" function whose model calls and tool calls are "use step" functions. The directives need
 * the workflow compiler: as the SDK's guide for framework integrations does, the workflow and step
 * bundles are built with its builder (@workflow/builders) and their POST handlers served on the
 * /.well-known/workflow/v1/{flow,step} routes, here by a Node.js HTTP server on loopback in this
 * process (no webhook route: the task uses no hooks); runs are started with start() from workflow/api.
 *
 * Durable: the local world writes each run's events and steps as JSON files under the data
 * directory, every step's input and output included (the model step's input is the conversation so
 * far, so the files grow with the square of the turns). Each turn the workflow body is replayed in a
 * VM from its event log. The local world's queue is in memory (the SDK documents it as not
 * persisting across restarts): after a kill, starting the world (world.start(), which the SDK's docs
 * call at server start) re-enqueues the runs its files show pending or running, and the replay
 * skips the finished steps; the step in flight at the kill (a model call) runs again. The local
 * world is the SDK's development world: one process, no authentication on the routes.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createLocalWorld } from '@workflow/world-local';
import { getRun, start } from 'workflow/api';
import { setWorld } from 'workflow/runtime';
import { PROMPT, peerEnv, runAll } from '../task';

type Handler = (request: Request) => Promise<Response>;

const env = peerEnv();
const ROOT = path.join(__dirname, '..');
const SOURCE = path.join(ROOT, 'workflows/vercel-workflow.ts');
// Where `workflow build` puts them too (git-ignored), in this package: the bundles resolve the SDK from it.
const buildDir = path.join(ROOT, '.well-known/workflow/v1');
const worldDir = path.join(env.dataDir, 'world');

/**
 * Builds the two bundles with the SDK's builder (as its guide for framework integrations extends
 * BaseBuilder), in a process of its own as a deployment's build step is: the compiler (esbuild, swc)
 * stays out of the process that serves them. Once per data directory: the first process of a bench
 * builds, a restarted one reuses the build. Returns the workflow's id, from the build's manifest.
 */
async function build(): Promise<string> {
  const idFile = path.join(env.dataDir, 'workflow-id');
  if (!existsSync(idFile)) {
    const built = spawnSync(process.execPath, [...process.execArgv, __filename, 'build'], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`building the workflow bundles: ${built.stderr}`);
  }
  return readFileSync(idFile, 'utf8');
}

async function buildBundles(): Promise<void> {
  const { BaseBuilder } = await import('@workflow/builders');
  class PeerBuilder extends BaseBuilder {
    async build(): Promise<void> {
      const inputFiles = [SOURCE];
      await this.createStepsBundle({ inputFiles, outfile: path.join(buildDir, 'step.js') });
      const { manifest } = await this.createWorkflowsBundle({ inputFiles, outfile: path.join(buildDir, 'flow.js') });
      const [workflowId] = Object.values(manifest.workflows ?? {}).flatMap((fns) => Object.values(fns).map((w) => w.workflowId));
      if (!workflowId) throw new Error(`no "use workflow" function in ${SOURCE}`);
      writeFileSync(path.join(env.dataDir, 'workflow-id'), workflowId);
    }
  }
  mkdirSync(buildDir, { recursive: true });
  await new PeerBuilder({ buildTarget: 'standalone', dirs: [], workingDir: ROOT, stepsBundlePath: '', workflowsBundlePath: '', webhookBundlePath: '' }).build();
}

/** The generated handlers take and return Web Requests and Responses: a Node.js server in front of them. */
async function serve(routes: Record<string, Handler>): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const handler = routes[new URL(req.url ?? '/', 'http://127.0.0.1').pathname];
      if (!handler || req.method !== 'POST') return void res.writeHead(404).end();
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const response = await handler(new Request(`http://127.0.0.1${req.url}`, { method: 'POST', headers, body: Buffer.concat(chunks) }));
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  return server;
}

/** Bytes of the run's files in the local world (its run record, events and steps). */
function bytesOf(runId: string): number {
  let total = 0;
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.includes(runId)) total += statSync(file).size;
    }
  };
  walk(worldDir);
  return total;
}

async function main(): Promise<void> {
  const workflowId = await build();
  // CommonJS, named .js as `workflow build` names them: the bench's tsx loader runs a .js file of a
  // CommonJS package as it is, where it would transform a .cjs one first (25 MB of generated code).
  const flow = require(path.join(buildDir, 'flow.js')) as { POST: Handler };
  const step = require(path.join(buildDir, 'step.js')) as { POST: Handler };
  const server = await serve({ '/.well-known/workflow/v1/flow': flow.POST, '/.well-known/workflow/v1/step': step.POST });
  const world = createLocalWorld({ dataDir: worldDir, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  setWorld(world);
  // Re-enqueues the runs a killed process left pending or running.
  await world.start?.();
  await runAll(
    async (env, runId) => {
      // start() names the run (wrun_...): its id is kept to find the run again after a restart.
      const runFile = path.join(env.dataDir, `${runId}.run-id`);
      const run = env.mode === 'resume' ? getRun<string>(readFileSync(runFile, 'utf8')) : await start<[string, string], string>({ workflowId }, [runId, PROMPT]);
      if (env.mode === 'start') writeFileSync(runFile, run.runId);
      const answer = await run.returnValue;
      return { answer, bytes: [bytesOf(run.runId), "the run's JSON files in the local world's data directory (run, events, steps)"] };
    },
    async () => {
      await world.close?.();
      server.close();
    },
  );
}

void (process.argv[2] === 'build' ? buildBundles() : main()).catch((err) => {
  console.error(err);
  process.exit(1);
});
