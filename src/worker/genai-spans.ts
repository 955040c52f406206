import { SpanKind, SpanStatusCode, type Span, type Tracer } from '@opentelemetry/api';
import type { Context } from '@temporalio/activity';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, Next } from '@temporalio/worker';
import { stopReasonOf, type LLMResponse } from '../common/messages';
import type { ToolOutcome } from '../common/tool-outcome';
import { toolActivities } from '../activities/tools';

const TOOLS = new Set([...Object.keys(toolActivities), 'runCommand']);

/**
 * Spans named and attributed by the OpenTelemetry GenAI semantic conventions, inside the activity
 * span: `chat <model>` for each model call (model, tokens, finish reason), `execute_tool <name>`
 * for each tool.
 */
export class GenAiSpansInterceptor implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly ctx: Context,
    private readonly tracer: Tracer,
    private readonly defaultModel: string | undefined,
    private readonly defaultProvider = 'openai',
  ) {}

  execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const type = this.ctx.info.activityType;
    if (type === 'callModel') {
      const asked = input.args[0] as { model?: string; provider?: string } | undefined;
      const requested = asked?.model ?? this.defaultModel ?? 'unknown';
      return this.span(`chat ${requested}`, { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': asked?.provider ?? this.defaultProvider, 'gen_ai.request.model': requested }, () => next(input), (span, result) => {
        const response = result as LLMResponse;
        span.setAttributes({
          'gen_ai.response.model': response.model,
          'gen_ai.usage.input_tokens': response.usage.inputTokens,
          'gen_ai.usage.output_tokens': response.usage.outputTokens,
          'gen_ai.response.finish_reasons': [stopReasonOf(response)],
        });
      });
    }
    if (TOOLS.has(type)) {
      const name = type === 'runCommand' ? 'background_run' : type;
      return this.span(`execute_tool ${name}`, { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.type': 'function' }, () => next(input), (span, result) => {
        const outcome = result as ToolOutcome | undefined;
        if (outcome && 'ok' in outcome && (!outcome.ok || outcome.isError)) {
          span.setAttribute('error.type', outcome.ok ? 'ToolError' : outcome.errorType);
        }
      });
    }
    return next(input);
  }

  private span(name: string, attributes: Record<string, string>, run: () => Promise<unknown>, onResult: (span: Span, result: unknown) => void): Promise<unknown> {
    const kind = attributes['gen_ai.operation.name'] === 'chat' ? SpanKind.CLIENT : SpanKind.INTERNAL;
    return this.tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
      try {
        const result = await run();
        onResult(span, result);
        return result;
      } catch (err) {
        const error = err as Error;
        span.recordException(error);
        span.setAttribute('error.type', error.name);
        span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
        throw err;
      } finally {
        span.end();
      }
    });
  }
}
