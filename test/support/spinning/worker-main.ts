/**
 * A worker of the spinning workflows in its own process: `tsx worker-main.ts <address> <taskQueue>`.
 * Its own process because a workflow ended by the deadlock watchdog may take the process with it
 * (Node 20: a timed-out microtask corrupts the async-hook stack, nodejs/node#38503).
 */
import { NativeConnection, Runtime, DefaultLogger, Worker } from '@temporalio/worker';

async function main() {
  const [address, taskQueue] = process.argv.slice(2);
  if (!address || !taskQueue) throw new Error('usage: worker-main.ts <address> <taskQueue>');
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const connection = await NativeConnection.connect({ address });
  // The SDK reads `isolateExecutionTimeout` (default 5 s) though its public options type omits it.
  const deadlockTimeout = { isolateExecutionTimeout: '1s' } as object;
  const worker = await Worker.create({ connection, taskQueue, workflowsPath: require.resolve('./workflows'), ...deadlockTimeout });
  console.log('Worker polling');
  await worker.run();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
