import { Readable, Writable } from 'node:stream';
import { openStack } from '../cli/local-stack';
import { acpSdk } from './acp-sdk';
import { acpAgent, type SessionDefaults } from './acp-agent';

/**
 * `bareagent acp`: an ACP agent on stdio for editors; each session is a durable run on the server
 * of TEMPORAL_ADDRESS. Stdout carries the protocol only. It ends when the editor closes the
 * connection; the runs go on, and `session/load` picks any of them up again.
 */
export async function acpCommand(defaults: SessionDefaults): Promise<number> {
  const stack = await openStack({ embedded: false, log: (line) => console.error(line) });
  try {
    const stream = acpSdk().ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
    const connection = acpAgent(stack.client, stack.config, defaults).connect(stream);
    await connection.closed;
    return 0;
  } finally {
    await stack.close();
  }
}
