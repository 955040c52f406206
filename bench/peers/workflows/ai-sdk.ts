/** The Temporal AI SDK plugin's agent: generateText with a tool, as the plugin's samples write it. */
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { TemporalProvider } from '@temporalio/ai-sdk/workflow';
import { proxyActivities } from '@temporalio/workflow';
import type { readFileActivity } from '../agents/temporal-ai-sdk';
import { SYSTEM, TOOL_DESCRIPTION, TURNS } from '../constants';

const { readFile } = proxyActivities<{ readFile: typeof readFileActivity }>({ startToCloseTimeout: '1 minute' });

// The plugin's default is 10 minutes: a model call in flight on a killed worker is retried only then.
const provider = new TemporalProvider({ languageModel: { startToCloseTimeout: '20 seconds' } });

export async function aiSdkAgent(runId: string, prompt: string): Promise<string> {
  const result = await generateText({
    model: provider.languageModel(runId),
    system: SYSTEM,
    prompt,
    tools: {
      read_file: tool({
        description: TOOL_DESCRIPTION,
        inputSchema: z.object({ file_path: z.string() }),
        execute: async ({ file_path }) => readFile(file_path),
      }),
    },
    stopWhen: stepCountIs(TURNS + 5),
  });
  return result.text;
}
