/** The Temporal OpenAI Agents plugin's agent: an Agent with an activity-backed tool, run by TemporalOpenAIRunner. */
import { Agent } from '@openai/agents-core';
import { TemporalOpenAIRunner, activityAsTool } from '@temporalio/openai-agents/workflow';
import type { readFileActivity } from '../agents/openai-agents';
import { SYSTEM, TOOL_DESCRIPTION, TURNS } from '../constants';

export async function openAiAgentsAgent(runId: string, prompt: string): Promise<string> {
  const readFile = activityAsTool<typeof readFileActivity>(
    {
      name: 'read_file',
      description: TOOL_DESCRIPTION,
      parameters: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'], additionalProperties: false },
    },
    { startToCloseTimeout: '1 minute' },
  );
  const agent = new Agent({ name: 'Reader', instructions: SYSTEM, model: runId, tools: [readFile] });
  const result = await new TemporalOpenAIRunner().run(agent, prompt, { maxTurns: TURNS + 5 });
  return result.finalOutput ?? '';
}
