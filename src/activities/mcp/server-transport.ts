import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig } from '../../common/mcp';
import type { SandboxRequest } from '../../common/sandbox';
import { egressFetch } from '../../egress/egress-fetch';
import { prepareCommand } from '../../sandbox/prepare-command';
import type { PinnedFile } from '../../common/pinned-files';
import { pinnedCopies } from '../settings/pinned-copies';

export interface OpenedTransport {
  transport: Transport;
  /** The server's stderr so far (last few KiB), for the error a failed start gives the model. */
  stderr(): string;
  /** Frees what the sandbox set up for the process (proxy, cgroup); after the transport closed. */
  cleanup(): Promise<void>;
}

const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;
const MAX_STDERR = 4096;

/**
 * A stdio server runs like a `bash` command: in the sandbox (or, with the sandbox off, with the
 * small command environment), so it sees none of the worker's keys; `env` of its configuration
 * is all it gets on top, set inside by `env` so that it never passes through the worker's own.
 */
export async function openTransport(config: McpServerConfig, workspace: string, sandbox: SandboxRequest, pins: readonly PinnedFile[] = []): Promise<OpenedTransport> {
  if ('url' in config) {
    // Through the worker's egress policy: the worker connects, not the sandbox, so loopback and private addresses are refused unless the operator allows them.
    const transport = new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers }, fetch: egressFetch() });
    return { transport, stderr: () => '', cleanup: async () => {} };
  }
  const assignments = Object.entries(config.env).map(([name, value]) => quote(`${name}=${value}`));
  const command = ['exec', 'env', ...assignments, quote(config.command), ...config.args.map(quote)].join(' ');
  // Checked again as the server starts, and started with the checked bytes bound over its files.
  const pinned = await pinnedCopies(workspace, pins);
  const prepared = await prepareCommand(command, { workspace, cwd: workspace, sandbox, ...(pinned.copies.length ? { pinnedCopies: pinned.copies } : {}) }).catch(async (err: unknown) => {
    await pinned.remove();
    throw err;
  });
  const transport = new StdioClientTransport({
    command: prepared.file,
    args: prepared.args,
    env: Object.fromEntries(Object.entries(prepared.env).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    cwd: prepared.cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-MAX_STDERR);
  });
  return {
    transport,
    stderr: () => stderr.trim(),
    cleanup: async () => {
      await prepared.cleanup();
      await pinned.remove();
    },
  };
}
