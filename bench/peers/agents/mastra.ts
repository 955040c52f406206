/**
 * Mastra: an Agent with a tool and Memory, the Mastra instance's storage in a LibSQL file, as
 * Mastra's docs configure a persistent agent. Mastra persists an agent's messages to the thread
 * in its storage; it has no replay of a generate() call in flight (its "durable agents" cache a
 * run's stream for reconnecting clients). Resuming after a kill is therefore what a user can do:
 * call the agent again on the same thread, with what its memory kept.
 */
import path from 'node:path';
import { Agent } from '@mastra/core/agent';
import { Mastra } from '@mastra/core/mastra';
import { createTool } from '@mastra/core/tools';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { createClient } from '@libsql/client';
import { z } from 'zod';
import { PROMPT, SYSTEM, TOOL_DESCRIPTION, TURNS, peerEnv, readWorkspaceFile, runAll } from '../task';

const env = peerEnv();
const storage = new LibSQLStore({ id: 'peers-mastra', url: `file:${path.join(env.dataDir, 'mastra.db')}` });

const readFile = createTool({
  id: 'read_file',
  description: TOOL_DESCRIPTION,
  inputSchema: z.object({ file_path: z.string() }),
  execute: async ({ file_path }) => readWorkspaceFile(env.workspace, file_path),
});

function agentFor(runId: string): Agent {
  return new Agent({
    id: 'reader',
    name: 'reader',
    instructions: SYSTEM,
    model: { id: `scripted/${runId}`, url: env.modelUrl, apiKey: 'scripted' },
    tools: { read_file: readFile },
    memory: new Memory({ options: { lastMessages: 200 } }),
  });
}

async function bytesOf(runId: string): Promise<number> {
  const db = createClient({ url: `file:${path.join(env.dataDir, 'mastra.db')}` });
  try {
    const { rows } = await db.execute({ sql: 'SELECT COALESCE(SUM(LENGTH(content) + LENGTH(id) + LENGTH(thread_id)), 0) AS n FROM mastra_messages WHERE thread_id = ?', args: [runId] });
    return Number(rows[0]?.n ?? NaN);
  } finally {
    db.close();
  }
}

async function main(): Promise<void> {
  await runAll(async (env, runId) => {
    const agent = agentFor(runId);
    new Mastra({ agents: { reader: agent }, storage, logger: false });
    const prompt = env.mode === 'resume' ? 'Go on.' : PROMPT;
    const result = await agent.generate(prompt, { memory: { thread: runId, resource: 'bench' }, maxSteps: TURNS + 5 });
    return { answer: result.text, bytes: [await bytesOf(runId), "the thread's message rows in the LibSQL file (mastra_messages)"] };
  });
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
