import { connectionOptions } from './connection/connection-options';
import { NativeConnection } from '@temporalio/worker';
import { providerConfigFromEnv } from './connection/provider-config';
import { dataConverterFromEnv } from './codec/data-converter';
import { egressPolicyFromEnv } from './egress/egress-policy';
import { connectionFromEnv } from './connection/config';
import { sandboxLogLine } from './sandbox/describe-sandbox';
import { preflight, PreflightError } from './doctor/run-doctor';
import { createBareAgentWorker, createToolWorker } from './worker/create-worker';
import { ensureSearchAttributes } from './worker/ensure-search-attributes';
import { tracingFromEnv } from './worker/tracing';
import { applySetCurrentPolicy, resolveWorkerVersion } from './worker/worker-version';
import { versioningFromEnv } from './worker/worker-versioning';

/** `npm run worker`: polls BAREAGENT_TASK_QUEUE on TEMPORAL_ADDRESS; tools run in each run's workspace. */
export async function runWorker(): Promise<void> {
  // A worker whose sandbox cannot start would fail every command it is given: it does not start
  // (BAREAGENT_SANDBOX=off is the operator's explicit way round, said loudly below).
  await preflight('The worker', { cli: false, sandbox: true, tests: false, postgres: false });
  const config = connectionFromEnv();
  // A bad key fails here, before anything connects.
  const dataConverter = dataConverterFromEnv();
  // A typo in the operator's egress allow-list fails here too, not at a run's first connection.
  egressPolicyFromEnv();
  const added = await ensureSearchAttributes(config.address, config.namespace).catch((err: Error) => {
    console.error(`Could not check search attributes (${err.message}); register them as docs/operations.md says.`);
    return [];
  });
  if (added.length) console.error(`Registered search attributes: ${added.join(', ')}`);
  const versioning = versioningFromEnv();
  const versioned = versioning ? await resolveWorkerVersion(versioning) : undefined;
  const connection = await NativeConnection.connect(connectionOptions(config.address));
  const tracing = tracingFromEnv();
  try {
    const worker = await createBareAgentWorker({
      connection,
      namespace: config.namespace,
      taskQueue: config.taskQueue,
      provider: providerConfigFromEnv(),
      ...(dataConverter ? { dataConverter } : {}),
      ...(tracing ? { tracing } : {}),
      // A versioned worker runs the bundle its build id names; any other the cached one, or the
      // prebuilt one BAREAGENT_WORKFLOW_BUNDLE names (src/worker/cached-bundle.ts).
      ...(versioned ? { workflowBundle: { codePath: versioned.codePath }, versioning: versioned.version } : {}),
    });
    const encryption = dataConverter ? ', payloads encrypted' : '';
    console.error(`Worker polling task queue "${config.taskQueue}" on ${config.address} (namespace ${config.namespace}${encryption})`);
    console.error(sandboxLogLine());
    if (tracing) console.error('Tracing: spans to the OTLP endpoint from OTEL_EXPORTER_OTLP_ENDPOINT');
    const running = worker.run();
    if (versioning && versioned) {
      // Not awaited before polling: the server registers the version from this worker's polls.
      applySetCurrentPolicy(connection.workflowService, config.namespace, versioning, versioned.version, (line) => console.error(line)).catch((err: Error) =>
        console.error(`Worker versioning: could not make build ${versioned.version.buildId} current (${err.message}); see docs/operations.md, "Upgrading workers"`),
      );
    }
    const toolQueue = process.env.BAREAGENT_TOOL_TASK_QUEUE;
    if (!toolQueue) return await running;
    // This machine holds workspaces: runs started with `toolTaskQueue` set to this queue run their tools here.
    const toolWorker = await createToolWorker({ connection, namespace: config.namespace, taskQueue: toolQueue, ...(dataConverter ? { dataConverter } : {}), ...(tracing ? { tracing } : {}) });
    console.error(`Tool worker polling task queue "${toolQueue}"`);
    await Promise.all([running, toolWorker.run()]);
  } finally {
    await tracing?.shutdown();
    await connection.close();
  }
}

if (require.main === module) {
  runWorker().catch((err) => {
    console.error(err instanceof PreflightError ? err.message : err);
    process.exit(1);
  });
}
