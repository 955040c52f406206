/**
 * OpenTelemetry: a run with a tool call and a subagent sends its spans to a real OTLP/HTTP
 * receiver, as one trace: workflow, activity, model-call and tool spans, correctly parented.
 */
import { byPrompt } from '../support/by-prompt';
import { Harness } from '../support/harness';
import { OtlpJsonReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { waitFor } from '../support/wait-for';
import { tracingFromEnv, type Tracing } from '../../src/worker/tracing';

let h: Harness;
let receiver: OtlpJsonReceiver;
let tracing: Tracing;
beforeAll(async () => {
  receiver = await OtlpJsonReceiver.start();
  h = await Harness.create();
  const traced = tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '200' });
  if (!traced) throw new Error('tracing should be on with an endpoint set');
  tracing = traced;
  await h.startWorker({ tracing });
});
afterAll(async () => {
  await h.close();
  await tracing.shutdown();
  await receiver.close();
});

test('no endpoint, no tracing: nothing is set up', () => {
  expect(tracingFromEnv({})).toBeUndefined();
  expect(tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
});

test('one trace per run: workflow, model-call and tool spans of the run and its subagent, parented', async () => {
  h.model.setScenario(
    'traced',
    byPrompt({
      'Look around': [
        {
          toolCalls: [
            { id: 'g1', name: 'glob', arguments: { pattern: '*.md' } },
            { id: 's1', name: 'subagent', arguments: { task: 'Read the readme', agent_type: 'explore' } },
          ],
        },
        { text: 'Done looking.' },
      ],
      'Read the readme': [{ text: 'It says hi.' }],
    }),
  );
  const handle = await h.start({ prompt: 'Look around', model: 'traced', workspace: h.workspace({ 'README.md': '# hi' }), permissionMode: 'auto' });
  expect(await handle.result()).toMatchObject({ text: 'Done looking.' });

  const runSpans = await waitFor(async () => {
    await tracing.flush();
    const roots = receiver.spans.filter((s) => s.name === 'RunWorkflow:agentRun' && s.attributes.workflowId === handle.workflowId);
    const root = roots[0];
    if (!root) return undefined;
    const inTrace = receiver.spans.filter((s) => s.traceId === root.traceId);
    return inTrace.filter((s) => s.name.startsWith('chat ')).length >= 3 && inTrace.some((s) => s.name === 'RunWorkflow:agentRun' && s !== root) ? inTrace : undefined;
  }, 'the run spans at the receiver').catch((err: Error) => {
    console.log(JSON.stringify(receiver.spans.map((s) => [s.name, s.traceId.slice(0, 6), s.attributes.workflowId, Object.keys(s.attributes).slice(0, 8)])));
    throw err;
  });

  const byId = new Map(runSpans.map((s) => [s.spanId, s]));
  const ancestors = (span: ReceivedSpan): string[] => {
    const names: string[] = [];
    for (let p = span.parentSpanId && byId.get(span.parentSpanId); p; p = p.parentSpanId ? byId.get(p.parentSpanId) : undefined) names.push(p.name);
    return names;
  };
  const named = (name: string) => runSpans.filter((s) => s.name === name);

  // The parent run and its subagent (a child agentRun) in one trace, the child under the parent.
  const workflows = named('RunWorkflow:agentRun');
  expect(workflows).toHaveLength(2);
  const child = workflows.find((s) => s.attributes.workflowId !== handle.workflowId);
  expect(child && ancestors(child)).toEqual(['StartChildWorkflow:agentRun', 'RunWorkflow:agentRun']);

  // Model calls: GenAI attributes, inside the activity span that the workflow's StartActivity span scheduled.
  const chats = named('chat traced');
  expect(chats).toHaveLength(3);
  for (const chat of chats) {
    expect(ancestors(chat).slice(0, 3)).toEqual(['RunActivity:callModel', 'StartActivity:callModel', 'RunWorkflow:agentRun']);
    expect(chat.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'traced', 'gen_ai.response.model': 'traced' });
    expect(chat.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(chat.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
  }
  expect(chats.map((c) => c.attributes['gen_ai.response.finish_reasons']).sort()).toEqual([['end'], ['end'], ['tool_calls']]);
  // The subagent's model call is under the child workflow.
  expect(chats.filter((c) => ancestors(c).includes('StartChildWorkflow:agentRun'))).toHaveLength(1);

  // The tool call.
  const [glob] = named('execute_tool glob');
  expect(glob?.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'glob' });
  expect(ancestors(glob!).slice(0, 3)).toEqual(['RunActivity:glob', 'StartActivity:glob', 'RunWorkflow:agentRun']);
  expect(new Set(runSpans.map((s) => s.service))).toEqual(new Set(['bareagent-worker']));
});
