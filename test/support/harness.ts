import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection, Runtime, DefaultLogger, type Worker } from '@temporalio/worker';
import type { AgentRunInput } from '../../src/common/input';
import type { AgentRunResult } from '../../src/common/wire';
import { createBareAgentWorker } from '../../src/worker/create-worker';
import type { DeploymentVersion } from '../../src/worker/make-current';
import type { Tracing } from '../../src/worker/tracing';
import { ScriptedModelServer, type Scenario } from './scripted-model-server';
import { readTestEnv, type TestEnv } from './test-env';

/** Which wire format the workflow tests' runs use against the scripted model server: `openai` (default) or `anthropic`. */
export const TEST_WIRE = process.env.BAREAGENT_TEST_WIRE === 'anthropic' ? 'anthropic' : 'openai';

/**
 * A test about OpenAI's Chat Completions wire itself (a field, an error, a quirk of the servers that
 * speak it), where the same run over Anthropic's wire would ask something else. It runs in the
 * openai pass (`npm test`); the anthropic pass (jest.anthropic-wire.config.js) lists it as skipped,
 * by this name, so every other test of a suite runs over both wires.
 */
export function openaiWireOnly(name: string, fn: () => Promise<unknown>, timeout?: number): void {
  (TEST_WIRE === 'openai' ? test : test.skip)(`${name} (OpenAI's wire)`, fn, timeout);
}

let runtimeInstalled = false;
export function quietRuntime() {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({ logger: new DefaultLogger((process.env.TEST_LOG_LEVEL as 'ERROR') ?? 'ERROR') });
}

export interface RunningWorker {
  worker: Worker;
  stop(): Promise<void>;
}

/** A test file's world: the shared dev server, its own task queue, a scripted model, workers. */
export class Harness {
  readonly taskQueue = `test-${randomUUID()}`;
  private readonly workers = new Set<RunningWorker>();

  private constructor(
    readonly env: TestEnv,
    readonly client: Client,
    private readonly connection: Connection,
    private readonly nativeConnection: NativeConnection,
    readonly model: ScriptedModelServer,
  ) {}

  /** `address`: another Temporal server than the shared one (e.g. a test's own, restartable dev server). */
  static async create(scenarios: Record<string, Scenario> = {}, options: { address?: string } = {}): Promise<Harness> {
    quietRuntime();
    const env = { ...readTestEnv(), ...(options.address ? { address: options.address } : {}) };
    const connection = await Connection.connect({ address: env.address });
    const nativeConnection = await NativeConnection.connect({ address: env.address });
    const model = await ScriptedModelServer.start(scenarios);
    return new Harness(env, new Client({ connection }), connection, nativeConnection, model);
  }

  /**
   * `dataConverter`: e.g. the encryption codec (test/e2e/encryption.test.ts); the harness client keeps the default.
   * `versioning`: the worker polls as that deployment version (test/workflows/worker-versioning.test.ts).
   * `modelBaseURL`: a real OpenAI-compatible server instead of the scripted one (test/local-model/).
   */
  async startWorker(
    overrides: { modelBaseURL?: string; defaultModel?: string; requestTimeoutMs?: number; dataConverter?: DataConverter; tracing?: Tracing; versioning?: DeploymentVersion; identity?: string; notifyWebhook?: string } = {},
  ): Promise<RunningWorker> {
    const worker = await createBareAgentWorker({
      connection: this.nativeConnection,
      namespace: 'default',
      taskQueue: this.taskQueue,
      provider: {
        baseURL: overrides.modelBaseURL ?? this.model.url,
        apiKey: 'sk-test-secret-never-in-history',
        requestTimeoutMs: overrides.requestTimeoutMs ?? 30_000,
        ...(overrides.defaultModel ? { defaultModel: overrides.defaultModel } : {}),
        // A run whose input says `provider: "anthropic"` reaches the same scripts over Anthropic's Messages API;
        // with BAREAGENT_TEST_WIRE=anthropic every run does.
        endpoints: { anthropic: { baseURL: this.model.anthropicUrl, apiKey: 'sk-test-secret-never-in-history' } },
        ...(TEST_WIRE === 'anthropic' && !overrides.modelBaseURL ? { defaultProvider: 'anthropic' as const } : {}),
      },
      workflowBundle: { codePath: this.env.bundlePath },
      ...(overrides.dataConverter ? { dataConverter: overrides.dataConverter } : {}),
      ...(overrides.tracing ? { tracing: overrides.tracing } : {}),
      ...(overrides.notifyWebhook ? { notifyWebhook: overrides.notifyWebhook } : {}),
      ...(overrides.versioning ? { versioning: overrides.versioning } : {}),
      ...(overrides.identity ? { identity: overrides.identity } : {}),
    });
    const running = worker.run();
    const handle: RunningWorker = {
      worker,
      stop: async () => {
        this.workers.delete(handle);
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await running;
      },
    };
    this.workers.add(handle);
    return handle;
  }

  /** Stops every worker of this harness (runs stay open on the server). */
  async stopWorkers(): Promise<void> {
    for (const worker of [...this.workers]) await worker.stop();
  }

  start(input: AgentRunInput | Record<string, unknown>, workflowId = `run-${randomUUID()}`): Promise<WorkflowHandle> {
    return this.client.workflow.start('agentRun', { taskQueue: this.taskQueue, workflowId, args: [input] });
  }

  async execute(input: AgentRunInput | Record<string, unknown>): Promise<AgentRunResult> {
    const handle = await this.start(input);
    return (await handle.result()) as AgentRunResult;
  }

  /** A fresh workspace holding the given files. */
  workspace(files: Record<string, string> = {}): string {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bareagent-ws-'));
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), content);
    }
    return dir;
  }

  async close(): Promise<void> {
    await this.stopWorkers();
    await this.model.close();
    await this.connection.close();
    await this.nativeConnection.close();
  }
}
