import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';
// The package's entry point also loads its worker and client parts (Node only); its own docs
// name this path for workflow code, the one SDK lib/ import the lint allows.
// eslint-disable-next-line @typescript-eslint/no-restricted-imports
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';

/**
 * Workflow spans (run, activities, children, continue-as-new), always in the bundle so that the
 * bundle (and the build id derived from it) does not depend on whether tracing is on. The spans
 * leave the workflow through the `exporter` sink: the worker's OTLP exporter, or a no-op when
 * tracing is off (src/worker/tracing.ts). Trace context travels in headers to activities, children
 * and the next run after continue-as-new: one trace per run.
 */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [new OpenTelemetryInboundInterceptor()],
  outbound: [new OpenTelemetryOutboundInterceptor()],
  internals: [new OpenTelemetryInternalsInterceptor()],
});
