import { context, propagation, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { envDetectorSync, Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { makeWorkflowExporter, OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor, type OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import { GenAiSpansInterceptor } from './genai-spans';
import { otlpTracesUrl } from './tracing-sinks';

/** What a worker needs to trace: its activity interceptors, the sink for workflow spans, and a flush at the end. */
export interface Tracing {
  tracer: Tracer;
  activityInterceptors(defaultModel: string | undefined, defaultProvider?: string): ActivityInterceptorsFactory[];
  sinks: InjectedSinks<OpenTelemetrySinks>;
  /** Sends what is batched now. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

function exporterFor(url: string, env: NodeJS.ProcessEnv): SpanExporter {
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf';
  if (protocol === 'http/json') return new JsonExporter({ url });
  if (protocol !== 'http/protobuf') console.error(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported here; sending http/protobuf to ${url}`);
  return new ProtobufExporter({ url });
}

let globalsSet = false;

/**
 * The worker's tracing from OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, _PROTOCOL (http/protobuf or
 * http/json), OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES and OTEL_BSP_*; undefined (off) when
 * no endpoint is set, or OTEL_SDK_DISABLED=true / OTEL_TRACES_EXPORTER=none.
 */
export function tracingFromEnv(env: NodeJS.ProcessEnv = process.env): Tracing | undefined {
  const url = otlpTracesUrl(env);
  if (!url) return undefined;
  const resource = new Resource({ 'service.name': 'bareagent-worker' }).merge(envDetectorSync.detect());
  const processor = new BatchSpanProcessor(exporterFor(url, env));
  const provider = new BasicTracerProvider({ resource });
  provider.addSpanProcessor(processor);
  // The trace context arrives in the activity's headers (W3C trace context), and the activity span
  // must be the active context while the activity runs, so that the spans it opens nest under it.
  if (!globalsSet) {
    globalsSet = true;
    propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  }
  const tracer = provider.getTracer('bareagent');
  return {
    tracer,
    activityInterceptors: (defaultModel, defaultProvider) => [
      (ctx) => ({
        inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }),
        outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
      }),
      (ctx) => ({ inbound: new GenAiSpansInterceptor(ctx, tracer, defaultModel, defaultProvider) }),
    ],
    sinks: { exporter: makeWorkflowExporter(processor, resource) },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
