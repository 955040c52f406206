import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpServerConfig } from '../../common/mcp';
import type { SandboxRequest } from '../../common/sandbox';
import type { PinnedFile } from '../../common/pinned-files';
import { openTransport } from './server-transport';

/** A started server stays up this long after its last call, for the run's next calls. */
const IDLE_CLOSE_MS = 5 * 60_000;
/** Starting and the initialize handshake; `npx` fetching a package would need longer, and is not what a sandbox allows anyway. */
const CONNECT_TIMEOUT_MS = 30_000;

export class McpServerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

interface Entry {
  client: Promise<Client>;
  timer?: NodeJS.Timeout;
  busy: number;
}

/**
 * The worker's open MCP clients, one per (server configuration, workspace, sandbox): starting a
 * stdio server takes about 0.4 s, a call on an open one a few ms. A server that exits is dropped
 * and started again by the next call; one idle for five minutes is stopped.
 */
export class McpConnections {
  private readonly entries = new Map<string, Entry>();

  /** `pins`: the workspace files the server runs; it starts with the bytes they were pinned with bound over them. */
  async use<T>(server: string, config: McpServerConfig, workspace: string, sandbox: SandboxRequest, pins: readonly PinnedFile[], fn: (client: Client) => Promise<T>): Promise<T> {
    const key = JSON.stringify([config, workspace, sandbox, pins]);
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { client: connect(server, config, workspace, sandbox, pins, () => this.drop(key)), busy: 0 };
      this.entries.set(key, entry);
    }
    const current = entry;
    if (current.timer) clearTimeout(current.timer);
    current.busy += 1;
    try {
      return await fn(await current.client);
    } catch (err) {
      // A failed start is not kept: the next call tries again.
      if (this.entries.get(key) === current && !(await settled(current.client))) void this.drop(key);
      throw err;
    } finally {
      current.busy -= 1;
      if (current.busy === 0 && this.entries.get(key) === current) {
        current.timer = setTimeout(() => void this.drop(key), IDLE_CLOSE_MS);
        current.timer.unref();
      }
    }
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((key) => this.drop(key)));
  }

  private async drop(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    if (entry.timer) clearTimeout(entry.timer);
    const client = await entry.client.catch(() => undefined);
    await client?.close().catch(() => undefined);
  }
}

async function settled(client: Promise<Client>): Promise<boolean> {
  return client.then(
    () => true,
    () => false,
  );
}

async function connect(server: string, config: McpServerConfig, workspace: string, sandbox: SandboxRequest, pins: readonly PinnedFile[], onClose: () => void): Promise<Client> {
  const opened = await openTransport(config, workspace, sandbox, pins);
  const client = new Client({ name: 'bareagent', version: '0.1.0' });
  let connected = false;
  client.onclose = () => {
    void opened.cleanup();
    if (connected) onClose();
  };
  try {
    await client.connect(opened.transport, { timeout: CONNECT_TIMEOUT_MS });
    connected = true;
    return client;
  } catch (err) {
    await client.close().catch(() => undefined);
    await opened.cleanup();
    const stderr = opened.stderr();
    throw new McpServerError(`MCP server "${server}" did not start: ${(err as Error).message}${stderr ? `\n${stderr}` : ''}`);
  }
}
