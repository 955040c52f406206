import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../support/cli';
import { freePort } from '../support/free-port';
import { readTestEnv } from '../support/test-env';

const ROOT = path.resolve(__dirname, '../..');

test('npm run server starts the embedded server with its Web UI, a second call reuses it, Ctrl-C stops it', async () => {
  const [port, uiPort] = [await freePort(), await freePort()];
  const home = mkdtempSync(path.join(os.tmpdir(), 'bareagent-home-'));
  const env = { TEMPORAL_ADDRESS: `127.0.0.1:${port}`, BAREAGENT_UI_PORT: String(uiPort), BAREAGENT_HOME: home, TEMPORAL_CLI: readTestEnv().cliPath };
  const server = spawn(process.execPath, [path.join(ROOT, 'bin/bareagent.js'), 'server'], { env: { ...process.env, ...env, NO_COLOR: '1' } });
  let out = '';
  server.stdout.on('data', (c: Buffer) => (out += c.toString()));
  server.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
  try {
    for (const deadline = Date.now() + 60_000; !out.includes('Ctrl-C stops it'); ) {
      if (Date.now() > deadline) throw new Error(`server did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(out).toContain(`Web UI: http://127.0.0.1:${uiPort}`);
    expect(out).toContain(path.join(home, 'temporal.sqlite'));
    expect(await httpStatus(`http://127.0.0.1:${uiPort}/`)).toBe(200);
    const second = await runCli(['server'], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`A Temporal server already answers on 127.0.0.1:${port}; nothing to start.`);
  } finally {
    server.kill('SIGINT');
  }
  expect(await exited).toBe(0);
  expect(out).toContain('Stopping the Temporal dev server');
});

test('a port taken by something that is not a Temporal server is named clearly', async () => {
  const squatter = http.createServer((_req, res) => res.end('not temporal'));
  await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  const port = (squatter.address() as { port: number }).port;
  try {
    const result = await runCli(['server'], { TEMPORAL_ADDRESS: `127.0.0.1:${port}`, BAREAGENT_UI_PORT: String(await freePort()), BAREAGENT_HOME: mkdtempSync(path.join(os.tmpdir(), 'h-')) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Port ${port} on 127.0.0.1 is taken by something that is not a Temporal server.`);
  } finally {
    squatter.close();
  }
});

function httpStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get(url, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
}
