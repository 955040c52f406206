import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Harness } from './harness';

const ROOT = path.resolve(__dirname, '../..');

/** A worker in its own process (`npm run worker`), so a test can kill it with SIGKILL. */
export class WorkerProcess {
  private constructor(readonly child: ChildProcess, readonly output: { text: string }) {}

  static async start(h: Harness, env: Record<string, string> = {}): Promise<WorkerProcess> {
    const output = { text: '' };
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/worker.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: h.env.address,
        BAREAGENT_TASK_QUEUE: h.taskQueue,
        OPENAI_BASE_URL: h.model.url,
        OPENAI_API_KEY: 'sk-test-secret-never-in-history',
        BAREAGENT_WORKFLOW_BUNDLE: h.env.bundlePath,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (c: Buffer) => (output.text += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (output.text += c.toString()));
    const worker = new WorkerProcess(child, output);
    const deadline = Date.now() + 60_000;
    while (!output.text.includes('Worker polling')) {
      if (child.exitCode !== null) throw new Error(`worker exited early:\n${output.text}`);
      if (Date.now() > deadline) {
        await worker.kill(); // not left polling behind a failed test
        throw new Error(`worker did not start:\n${output.text}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return worker;
  }

  /** SIGKILL: no shutdown, no cleanup; in-flight activities are lost to the server's timeouts. */
  async kill(): Promise<void> {
    // A killed child has a signalCode and no exitCode: killing it twice must not wait for a second exit.
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGKILL');
    await exited;
  }
}
