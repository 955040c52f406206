import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { lastToolResult, ScriptedModelServer } from '../../src/testing/scripted-model-server';
import { run, type ConsumerProject } from './consumer-project';

/**
 * The embedding half of the package test: a user's own worker (test/package/embedding-project/,
 * plain CommonJS as a user writes it) with `new BareAgentPlugin({ model, tools })`, a tool from
 * `defineTool` (a zod schema, effect 'read'), and a parent workflow that runs `agentRun` as a child
 * on the user's own task queue. The scripted model asks for the tool with an order id, then answers
 * from what the tool returned. Passes when the tool ran with the model's arguments and the parent's
 * result carries the answer. Returns the problems found.
 */
const PROJECT_FILES = path.join(__dirname, 'embedding-project');
const SCENARIO = 'shop-agent';
const ORDER_ID = 'A-1742';

export async function embeddingStep(project: ConsumerProject, address: string): Promise<string[]> {
  const problems: string[] = [];
  for (const file of readdirSync(PROJECT_FILES)) copyFileSync(path.join(PROJECT_FILES, file), path.join(project.dir, file));
  const model = await ScriptedModelServer.start({
    [SCENARIO]: [
      { text: 'Looking the order up.', toolCalls: [{ id: 'call_lookup', name: 'lookup_order', arguments: { orderId: ORDER_ID } }] },
      { ifLastToolResult: { matches: `${ORDER_ID}.*Friday`, then: { text: `Order ${ORDER_ID} ships on Friday.` }, otherwise: { text: 'The tool did not answer.' } } },
    ],
  });
  try {
    const toolLog = path.join(project.dir, 'tool-calls.jsonl');
    const env = { ...project.env, TEMPORAL_ADDRESS: address, MODEL_URL: model.url, MODEL_NAME: SCENARIO, TOOL_LOG: toolLog, ORDER_QUESTION: `When does order ${ORDER_ID} ship?` };
    console.log('== the user\'s own worker: BareAgentPlugin, a defineTool tool, agentRun as a child of the user\'s workflow');
    const ran = await run('node', ['main.js'], project.dir, env, { echo: true, asUser: true });
    if (ran.code !== 0) return [`the user's worker (node main.js) exited ${ran.code}`];
    const calls = existsSync(toolLog) ? readFileSync(toolLog, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as unknown) : [];
    if (JSON.stringify(calls) !== JSON.stringify([{ orderId: ORDER_ID }])) problems.push(`the tool ran with ${JSON.stringify(calls)}, not once with the model's { orderId: "${ORDER_ID}" }`);
    const second = model.requestsFor(SCENARIO)[1];
    const result = second ? lastToolResult(second.body) : undefined;
    if (!result?.includes(`${ORDER_ID} ships on Friday`)) problems.push(`the model's second request did not carry the tool's result (${JSON.stringify(result)})`);
    const line = ran.out.trim().split('\n').pop() ?? '';
    const parentResult = /^RESULT (.*)$/.exec(line)?.[1];
    const answer = parentResult ? (JSON.parse(parentResult) as { answer?: string }).answer : undefined;
    if (answer !== `Order ${ORDER_ID} ships on Friday.`) problems.push(`the parent workflow's result is ${parentResult ?? '(none)'}, not the agent's answer`);
    if (problems.length === 0) console.log(`== the user's worker: the tool ran with { orderId: "${ORDER_ID}" }, the parent's result carries "${answer}" (${ran.seconds.toFixed(1)} s)`);
    return problems;
  } finally {
    await model.close();
  }
}
