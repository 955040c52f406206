/**
 * Vercel Workflow (`workflow` with `@workflow/world-local`): a "use workflow" function whose model
 * calls and tool calls are "use step" functions, started with start() from workflow/api. The
 * directives only work once the workflow compiler has turned the file into workflow and step
 * bundles served as HTTP routes by a framework integration (Next.js, Nitro, Vite, NestJS...);
 * run as a plain Node.js script, as here, start() reports why it cannot (the report shows it).
 */
import { start } from 'workflow/api';
import { PROMPT, runAll } from '../task';

async function readFileStep(filePath: string): Promise<string> {
  'use step';
  return filePath;
}

async function agent(runId: string, prompt: string): Promise<string> {
  'use workflow';
  return `${runId} ${prompt} ${await readFileStep('f0.txt')}`;
}

void runAll(async (_env, runId) => {
  const run = await start(agent, [runId, PROMPT]);
  return { answer: String(await run.returnValue) };
});
