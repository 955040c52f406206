import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureDevServer, type DevServer } from '../../src/server/dev-server';
import { freePort } from './free-port';
import { Harness } from './harness';

/**
 * A test file's own dev server that suggests continue-as-new after 150 events instead of
 * thousands, with a harness and (unless `worker: false`) a worker on it. Call at the top of the file; read the harness
 * in tests (or in a later beforeAll).
 */
export function shortHistoryHarness(homePrefix: string, options: { worker?: boolean } = {}): () => Harness {
  let server: DevServer | undefined;
  let h: Harness | undefined;
  beforeAll(async () => {
    server = await ensureDevServer({
      address: `127.0.0.1:${await freePort()}`,
      uiPort: await freePort(),
      home: mkdtempSync(path.join(os.tmpdir(), homePrefix)),
      persistent: false,
      log: () => undefined,
      extraArgs: ['--dynamic-config-value', 'limit.historyCount.suggestContinueAsNew=150'],
    });
    h = await Harness.create({}, { address: server.address });
    if (options.worker !== false) await h.startWorker();
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await server?.stop();
  });
  return () => {
    if (!h) throw new Error('the short-history harness is not started yet');
    return h;
  };
}
