import { spawn } from 'node:child_process';
import path from 'node:path';
import { startLocalModelServer } from '../../src/testing/local-model';
import { waitFor } from '../support/wait-for';

/**
 * The local model server is stopped by its own pid and never lingers: it takes SIGTERM (llama.cpp's
 * own handler would start a graceful stop that never ends inside Python), and it exits when the
 * process that started it dies, so no test run or CI stage has to hunt servers by name.
 */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('SIGTERM stops the server itself: it exits 0, not by the SIGKILL that follows two seconds later', async () => {
  const server = await startLocalModelServer({ log: () => undefined });
  expect(alive(server.pid)).toBe(true);
  await expect(server.stop()).resolves.toBe('exit 0');
  expect(alive(server.pid)).toBe(false);
});

test('a server whose starter is SIGKILLed exits with it', async () => {
  const script = `const { startLocalModelServer } = require(${JSON.stringify(path.join(__dirname, '../../src/testing/local-model'))});
startLocalModelServer({ log: () => undefined }).then((s) => { process.stdout.write(s.pid + '\\n'); setInterval(() => undefined, 1000); });`;
  const starter = spawn(process.execPath, ['--import', 'tsx', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const pid = await new Promise<number>((resolve, reject) => {
    starter.stdout.on('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    starter.once('exit', (code) => reject(new Error(`the starter exited (${code}) before the server was up`)));
  });
  expect(alive(pid)).toBe(true);
  starter.kill('SIGKILL');
  await waitFor(async () => (alive(pid) ? undefined : true), 'the orphaned server to exit', 30_000);
});
