import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks } from '@temporalio/worker';

/* What every worker needs to know about tracing without loading the OpenTelemetry SDK. */

/** Where spans go by the standard OTEL_* variables; undefined when nothing asks for traces. */
export function otlpTracesUrl(env: NodeJS.ProcessEnv): string | undefined {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return undefined;
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT) return `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`;
  return undefined;
}

/**
 * Every bundle carries the workflow span interceptors; with tracing off their spans go nowhere
 * (an unregistered sink would log an error for each).
 */
export function tracingSinks(tracing: { sinks: InjectedSinks<OpenTelemetrySinks> } | undefined): InjectedSinks<OpenTelemetrySinks> {
  return tracing?.sinks ?? { exporter: { export: { fn: () => undefined } } };
}

