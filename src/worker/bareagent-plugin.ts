import type { WorkflowService } from '@temporalio/client';
import { Runtime, type BundleOptions, type BundlerPlugin, type ReplayWorkerOptions, type Worker, type WorkerOptions, type WorkerPlugin } from '@temporalio/worker';
import { createActivities } from '../activities';
import { McpConnections } from '../activities/mcp/connections';
import { userToolDescriptor, type ToolDefinition } from '../activities/tools/define-tool';
import { providerConfigFromEnv, type ProviderConfig } from '../connection/provider-config';
import { workerIdentity } from '../connection/worker-identity';
import { failOrphanedAttempts } from './orphaned-attempts';
import type { Tracing } from './tracing';
import { tracingSinks } from './tracing-sinks';
import { checkToolActivities } from './tool-activity-check';
import { defining, payloadConverterPath, preloadedWorkflowModules, withSharedAsyncLocalStorage, workflowInterceptorModules } from './workflow-bundle';

export interface BareAgentPluginOptions {
  /** The model endpoint (OpenAI-compatible); each field unset is read from the environment (OPENAI_BASE_URL, OPENAI_API_KEY, BAREAGENT_MODEL). */
  model?: { baseURL?: string; apiKey?: string; model?: string; requestTimeoutMs?: number };
  /** Tools from the worker's code (`defineTool`): offered to every run this worker runs, beside the built-in ones. */
  tools?: readonly ToolDefinition[];
  /** The operator's hooks file (docs/hooks.md), which every run applies; default BAREAGENT_HOOKS_FILE. */
  hooksFile?: string;
  /** Where to POST when a run waits for a human; default BAREAGENT_NOTIFY_WEBHOOK. */
  notifyWebhook?: string;
  /** OpenTelemetry (src/worker/tracing.ts); off when absent. */
  tracing?: Tracing;
  /** @internal bareagent's own worker: the provider settings as its command resolved them, in place of `model` and the environment. */
  provider?: ProviderConfig;
}

/** The name webpack replaces with the tools' descriptors in the workflow bundle (src/common/tool-descriptors.ts). */
const USER_TOOLS_CONSTANT = '__BAREAGENT_USER_TOOLS__';

/**
 * Everything a worker needs to run `agentRun`, on the SDK's plugin interface: the activities
 * (model calls, tools, the worker's own tools, MCP, hooks, checkpoints), the payload converter, the
 * workflow interceptors and sinks, and what the workflow bundle holds (the preloaded modules, the
 * descriptors of the worker's own tools). `Worker.create({ ..., workflowsPath, plugins: [new BareAgentPlugin()] })`.
 */
export class BareAgentPlugin implements WorkerPlugin, BundlerPlugin {
  readonly name = 'bareagent';
  private readonly provider: ProviderConfig;
  private readonly tools: readonly ToolDefinition[];
  private readonly mcp = new McpConnections();

  constructor(private readonly options: BareAgentPluginOptions = {}) {
    const model = options.model ?? {};
    this.provider = options.provider ?? {
      ...providerConfigFromEnv(),
      ...(model.baseURL ? { baseURL: model.baseURL } : {}),
      ...(model.apiKey ? { apiKey: model.apiKey } : {}),
      ...(model.model ? { defaultModel: model.model } : {}),
      ...(model.requestTimeoutMs ? { requestTimeoutMs: model.requestTimeoutMs } : {}),
    };
    this.tools = options.tools ?? [];
    const names = this.tools.map((tool) => tool.name);
    const twice = names.filter((name, at) => names.indexOf(name) !== at);
    if (twice.length > 0) throw new TypeError(`BareAgentPlugin: two tools are named ${twice.join(', ')}`);
  }

  configureWorker(options: WorkerOptions): WorkerOptions {
    const activities = createActivities({
      provider: this.provider,
      mcp: this.mcp,
      notifyWebhook: this.options.notifyWebhook ?? (process.env.BAREAGENT_NOTIFY_WEBHOOK || undefined),
      tools: this.tools,
      hooksFile: this.options.hooksFile ?? (process.env.BAREAGENT_HOOKS_FILE || undefined),
    });
    const own = (options.activities ?? {}) as Record<string, unknown>;
    const clash = Object.keys(activities).filter((name) => name in own);
    if (clash.length > 0) throw new Error(`BareAgentPlugin: the worker already registers activities named ${clash.join(', ')}`);
    checkToolActivities(activities, this.tools.map((tool) => tool.name));
    if (this.tools.length > 0 && options.workflowBundle && !options.workflowsPath) {
      // A prebuilt bundle holds the tools only when it was built with this plugin (bundleWorkflowCode({ plugins })).
      process.emitWarning('BareAgentPlugin: with a prebuilt workflowBundle, the worker\'s tools are offered only if it was built with this plugin');
    }
    return {
      ...options,
      // Names this machine's pid space, so that the next worker here can tell this one has exited.
      identity: options.identity ?? workerIdentity(),
      activities: { ...own, ...activities },
      dataConverter: { ...options.dataConverter, payloadConverterPath: payloadConverterPath() },
      interceptors: {
        ...options.interceptors,
        activity: [...(options.interceptors?.activity ?? []), ...(this.options.tracing?.activityInterceptors(this.provider.defaultModel, this.provider.defaultProvider) ?? [])],
      },
      sinks: { ...tracingSinks(this.options.tracing), ...options.sinks },
      // Cancellation reaches an activity with its next heartbeat: a cancelled job's process is
      // killed within about a second instead of 80% of its heartbeat timeout (measured 9 s before).
      maxHeartbeatThrottleInterval: options.maxHeartbeatThrottleInterval ?? '1 second',
    };
  }

  configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    return { ...options, dataConverter: { ...options.dataConverter, payloadConverterPath: payloadConverterPath() }, sinks: { ...tracingSinks(undefined), ...options.sinks } };
  }

  configureBundler(options: BundleOptions): BundleOptions {
    const descriptors = this.tools.map(userToolDescriptor);
    const hook = options.webpackConfigHook;
    return {
      ...options,
      payloadConverterPath: payloadConverterPath(),
      workflowInterceptorModules: unique([...(options.workflowInterceptorModules ?? []), ...workflowInterceptorModules()]),
      preloadModules: unique([...(options.preloadModules ?? []), ...preloadedWorkflowModules()]),
      webpackConfigHook: (config) => {
        const configured = withSharedAsyncLocalStorage(hook ? hook(config) : config);
        if (descriptors.length === 0) return configured;
        return { ...configured, plugins: [...(configured.plugins ?? []), defining({ [USER_TOOLS_CONSTANT]: JSON.stringify(descriptors) })] } as typeof configured;
      },
    };
  }

  /** While the worker starts, the attempts an exited worker of this machine held are failed, so their runs go on now; the MCP servers the worker started end with it. */
  async runWorker(worker: Worker, next: (worker: Worker) => Promise<void>): Promise<void> {
    const connection = worker.connection;
    const reaping = connection ? this.failOrphans(connection.workflowService, worker.options) : undefined;
    try {
      await next(worker);
    } finally {
      await reaping;
      await this.mcp.closeAll();
    }
  }

  private async failOrphans(service: WorkflowService, { namespace, taskQueue, identity }: Worker['options']): Promise<void> {
    const logger = Runtime.instance().logger;
    try {
      const failed = await failOrphanedAttempts(service, { namespace, taskQueue, identity });
      for (const attempt of failed) logger.info(`Failed ${attempt.activityType} of ${attempt.workflowId}: its worker ${attempt.workerIdentity} exited`, { workflowId: attempt.workflowId });
    } catch (err) {
      logger.warn(`Could not look for the attempts of exited workers: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}
