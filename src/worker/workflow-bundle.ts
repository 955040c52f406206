export function workflowsPath(): string {
  return require.resolve('../workflows');
}

/** The converter that never throws on an undecodable payload (see src/common/payload-converter.ts). */
export function payloadConverterPath(): string {
  return require.resolve('../common/payload-converter');
}

/** The workflow interceptors every bundle carries: OpenTelemetry spans (src/workflows/tracing-interceptors.ts). */
export function workflowInterceptorModules(): string[] {
  return [require.resolve('../workflows/tracing-interceptors')];
}

/**
 * Modules loaded once into the worker's shared V8 context instead of once per cached run. With
 * the SDK's reusable context every run instantiates every module it imports for itself, and zod
 * alone is about 0.7 MiB of live heap per run (of ~2.3 MiB for a run that waits for a human) and
 * 10 ms of CPU each time a run enters the cache. Only stateless libraries belong here: the SDK
 * freezes what they export, and anything they keep at module level is shared by every run.
 */
export function preloadedWorkflowModules(): string[] {
  return [require.resolve('../workflows/preloaded-modules')];
}

/** What `bundleWorkflowCode` needs to build the same workflow code a worker builds for itself. */
export function bundleOptions() {
  return {
    workflowsPath: workflowsPath(),
    payloadConverterPath: payloadConverterPath(),
    workflowInterceptorModules: workflowInterceptorModules(),
    preloadModules: preloadedWorkflowModules(),
  };
}
