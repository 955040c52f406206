import { mkdtempSync, readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ensureDevServer } from '../../src/server/dev-server';
import { freePort } from '../support/free-port';

/**
 * A server started in the background (the embedded server of `bareagent run` and the demo) writes
 * its output to `<home>/server.log`. When it exits at start, what it wrote there is the error, and a
 * port the CLI picked itself and lost to another process is retried as in the foreground: four
 * dev servers starting at once in CI lost the demo's that way, with nothing but "see server.log".
 */
test('a background server that loses a port it picked itself says why, from its log, after the retries', async () => {
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const httpPort = (taken.address() as net.AddressInfo).port;
  const home = mkdtempSync(path.join(os.tmpdir(), 'bareagent-bg-server-'));
  try {
    const started = ensureDevServer({
      address: `127.0.0.1:${await freePort()}`,
      uiPort: await freePort(),
      home,
      background: true,
      persistent: false,
      // Stands for the port the CLI picks for its HTTP API and another process takes first.
      extraArgs: ['--http-port', String(httpPort)],
      log: () => undefined,
    });
    await expect(started).rejects.toThrow(new RegExp(`127\\.0\\.0\\.1:${httpPort}: bind: address already in use`));
    // Three starts, each appending its failure to the log: the race was retried.
    const failures = readFileSync(path.join(home, 'server.log'), 'utf8').match(/bind: address already in use/g) ?? [];
    expect(failures).toHaveLength(3);
  } finally {
    taken.close();
  }
}, 60_000);
