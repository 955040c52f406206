/**
 * LangGraph 1.7: the prebuilt ReAct agent (a model node and a ToolNode in a StateGraph) with the
 * SQLite checkpointer, one thread per run. The graph checkpoints after every super-step; after a
 * kill, invoking the thread with no new input resumes from its last checkpoint (LangGraph's
 * documented recovery). The model call is not itself recorded while in flight: a step that was
 * running when the process died runs again from the checkpoint before it.
 */
import path from 'node:path';
import { ChatOpenAI } from '@langchain/openai';
import { tool } from '@langchain/core/tools';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';
import { PROMPT, SYSTEM, TOOL_DESCRIPTION, TURNS, peerEnv, readWorkspaceFile, runAll } from '../task';

const env = peerEnv();
const checkpointer = SqliteSaver.fromConnString(path.join(env.dataDir, 'langgraph.sqlite'));

const readFile = tool(async ({ file_path }) => readWorkspaceFile(env.workspace, file_path), {
  name: 'read_file',
  description: TOOL_DESCRIPTION,
  schema: z.object({ file_path: z.string() }),
});

function bytesOf(runId: string): number {
  const db = (checkpointer as unknown as { db: { prepare(sql: string): { get(...a: unknown[]): { n: number | null } } } }).db;
  const checkpoints = db.prepare('SELECT SUM(LENGTH(checkpoint) + LENGTH(metadata) + LENGTH(checkpoint_id) * 2) AS n FROM checkpoints WHERE thread_id = ?').get(runId).n ?? 0;
  const writes = db.prepare('SELECT SUM(LENGTH(value) + LENGTH(channel) + LENGTH(task_id)) AS n FROM writes WHERE thread_id = ?').get(runId).n ?? 0;
  return checkpoints + writes;
}

void runAll(async (env, runId) => {
  const agent = createReactAgent({
    llm: new ChatOpenAI({ model: runId, apiKey: 'scripted', configuration: { baseURL: env.modelUrl }, maxRetries: 0 }),
    tools: [readFile],
    prompt: SYSTEM,
    checkpointSaver: checkpointer,
  });
  const config = { configurable: { thread_id: runId }, recursionLimit: TURNS * 2 + 10 };
  const input = env.mode === 'resume' ? null : { messages: [{ role: 'user', content: PROMPT }] };
  const state = await agent.invoke(input, config);
  const last = state.messages[state.messages.length - 1];
  return { answer: String(last?.content ?? ''), bytes: [bytesOf(runId), 'checkpoint and write rows of the thread (SQLite)'] };
});
