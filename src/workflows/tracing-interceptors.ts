import type { Next, UpdateInput, WorkflowInboundCallsInterceptor, WorkflowInterceptorsFactory } from '@temporalio/workflow';
// The package's entry point also loads its worker and client parts (Node only); its own docs
// name this path for workflow code, the one SDK lib/ import the lint allows.
// eslint-disable-next-line @typescript-eslint/no-restricted-imports
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';

/**
 * The SDK's inbound interceptor, but updates go straight to their handlers: its span around an
 * update's handler made a run that answered two permission updates fail to replay
 * ("Update machine does not handle this event: TimerCanceled"; test/workflows/permissions.test.ts).
 * Updates still show as the activities and steps they lead to.
 */
class UntracedUpdatesInterceptor extends OpenTelemetryInboundInterceptor {
  override handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    return next(input);
  }

  override validateUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'validateUpdate'>): void {
    next(input);
  }
}

/**
 * Workflow spans (run, activities, children, continue-as-new), always in the bundle so that the
 * bundle (and the build id derived from it) does not depend on whether tracing is on. The spans
 * leave the workflow through the `exporter` sink: the worker's OTLP exporter, or a no-op when
 * tracing is off (src/worker/tracing.ts). Trace context travels in headers to activities, children
 * and the next run after continue-as-new: one trace per run.
 */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [new UntracedUpdatesInterceptor()],
  outbound: [new OpenTelemetryOutboundInterceptor()],
  internals: [new OpenTelemetryInternalsInterceptor()],
});
