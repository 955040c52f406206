import type { BundleOptions } from '@temporalio/worker';
import { SHARED_STORAGE_GLOBAL } from '../workflows/shared-async-local-storage';

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
    webpackConfigHook: withSharedAsyncLocalStorage,
  };
}

type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];
type DefineCompiler = { webpack: { DefinePlugin: new (definitions: Record<string, string>) => { apply(compiler: unknown): void } } };

/** A webpack plugin that replaces each `name` of the bundle's code with the expression given for it. */
export function defining(definitions: Record<string, string>) {
  return {
    apply(compiler: DefineCompiler) {
      new compiler.webpack.DefinePlugin(definitions).apply(compiler);
    },
  };
}

/**
 * The SDK's modules take their storage class from `globalThis.AsyncLocalStorage`; the bundle
 * points them at the one every run of the thread shares (src/workflows/shared-async-local-storage.ts),
 * or at the SDK's own where the preloaded module did not install it.
 */
export function withSharedAsyncLocalStorage(config: WebpackConfig): WebpackConfig {
  // Parenthesised whole: `new globalThis.AsyncLocalStorage()` must construct the result, not the arrow.
  const shared = `(((scope) => scope.${SHARED_STORAGE_GLOBAL} || scope.AsyncLocalStorage)(globalThis))`;
  return { ...config, plugins: [...(config.plugins ?? []), defining({ 'globalThis.AsyncLocalStorage': shared })] } as WebpackConfig;
}
