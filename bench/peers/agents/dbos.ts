/**
 * DBOS Transact: a DBOS workflow runs the AI SDK's generateText; the model is wrapped in a
 * middleware that runs each model call as a DBOS step (what DBOS's own AI SDK integration,
 * durableCalls, does: its release pins @dbos-inc/dbos-sdk ^4, so these few lines stand in for it)
 * and the tool runs as a step. Step outputs are checkpointed in PostgreSQL; on launch DBOS
 * recovers the workflows its executor left pending and replays their finished steps.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, tool, wrapLanguageModel, type LanguageModelMiddleware } from 'ai';
import { Client } from 'pg';
import { z } from 'zod';
import { PROMPT, SYSTEM, TOOL_DESCRIPTION, TURNS, peerEnv, readWorkspaceFile, runAll } from '../task';

const env = peerEnv();
const provider = createOpenAICompatible({ name: 'scripted', baseURL: env.modelUrl, apiKey: 'scripted' });

const durableModelCalls: LanguageModelMiddleware = {
  specificationVersion: 'v4',
  wrapGenerate: async ({ doGenerate }) => DBOS.runStep(async () => doGenerate(), { name: 'model call' }),
} as LanguageModelMiddleware;

const agent = DBOS.registerWorkflow(
  async (runId: string, prompt: string): Promise<string> => {
    const { text } = await generateText({
      model: wrapLanguageModel({ model: provider(runId), middleware: durableModelCalls }),
      system: SYSTEM,
      prompt,
      tools: {
        read_file: tool({
          description: TOOL_DESCRIPTION,
          inputSchema: z.object({ file_path: z.string() }),
          execute: async ({ file_path }) => DBOS.runStep(async () => readWorkspaceFile(env.workspace, file_path), { name: 'read_file' }),
        }),
      },
      stopWhen: stepCountIs(TURNS + 5),
      maxRetries: 0,
    });
    return text;
  },
  { name: 'agent' },
);

async function bytesOf(runId: string): Promise<{ bytes: number; stored: number }> {
  const pg = new Client({ connectionString: env.postgresUrl });
  await pg.connect();
  try {
    // octet_length: the text as written, before PostgreSQL's own compression of large values (TOAST),
    // as the other peers' figures are; pg_column_size would give what is on disk after it.
    const outputs = await pg.query('SELECT COALESCE(SUM(COALESCE(octet_length(output), 0) + COALESCE(octet_length(error), 0) + octet_length(function_name)), 0) AS n, COALESCE(SUM(COALESCE(pg_column_size(output), 0)), 0) AS stored FROM dbos.operation_outputs WHERE workflow_uuid = $1', [runId]);
    const status = await pg.query('SELECT COALESCE(SUM(COALESCE(octet_length(inputs), 0) + COALESCE(octet_length(output), 0)), 0) AS n FROM dbos.workflow_status WHERE workflow_uuid = $1', [runId]);
    return { bytes: Number(outputs.rows[0].n) + Number(status.rows[0].n), stored: Number(outputs.rows[0].stored) };
  } finally {
    await pg.end();
  }
}

async function main(): Promise<void> {
  DBOS.setConfig({ name: 'peers-dbos', systemDatabaseUrl: env.postgresUrl });
  // Recovers this executor's pending workflows (the killed run) as it launches.
  await DBOS.launch();
  await runAll(
    async (env, runId) => {
      const handle = env.mode === 'resume' ? DBOS.retrieveWorkflow<string>(runId) : await DBOS.startWorkflow(agent, { workflowID: runId })(runId, PROMPT);
      const answer = await handle.getResult();
      const { bytes, stored } = await bytesOf(runId);
      return { answer, bytes: [bytes, `the workflow's inputs and step outputs in dbos.workflow_status and dbos.operation_outputs as written (${Math.round(stored / 1024)} KiB of step outputs on disk after TOAST compression)`] };
    },
    () => DBOS.shutdown(),
  );
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
