/**
 * The Vercel Workflow peer's agent: a "use workflow" function that loops over model calls and tool
 * calls, each a "use step" function. agents/vercel-workflow.ts compiles this file into the workflow
 * bundle (the workflow body, replayed in a VM from the run's event log) and the step bundle (the
 * step bodies, run once each and recorded).
 */
import OpenAI from 'openai';
import type { ChatCompletionMessage, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { SYSTEM, TOOL_DESCRIPTION, TURNS } from '../constants';
import { peerEnv, readWorkspaceFile } from '../task';

const tools: ChatCompletionTool[] = [
  {
    type: 'function',
    function: { name: 'read_file', description: TOOL_DESCRIPTION, parameters: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] } },
  },
];

async function callModel(model: string, messages: ChatCompletionMessageParam[]): Promise<ChatCompletionMessage> {
  'use step';
  const client = new OpenAI({ baseURL: peerEnv().modelUrl, apiKey: 'scripted', maxRetries: 0 });
  const completion = await client.chat.completions.create({ model, messages, tools });
  const message = completion.choices[0]?.message;
  if (!message) throw new Error('the model returned no choice');
  return message;
}

async function readFile(filePath: string): Promise<string> {
  'use step';
  return readWorkspaceFile(peerEnv().workspace, filePath);
}

export async function agent(runId: string, prompt: string): Promise<string> {
  'use workflow';
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: prompt },
  ];
  for (let turn = 0; turn < TURNS + 5; turn++) {
    const reply = await callModel(runId, messages);
    messages.push(reply);
    if (!reply.tool_calls?.length) return reply.content ?? '';
    for (const call of reply.tool_calls) {
      if (call.type !== 'function') throw new Error(`unexpected tool call ${call.type}`);
      const { file_path } = JSON.parse(call.function.arguments) as { file_path: string };
      messages.push({ role: 'tool', tool_call_id: call.id, content: await readFile(file_path) });
    }
  }
  throw new Error(`no final answer after ${TURNS + 5} model calls`);
}
