import { DefaultLogger, Runtime } from '@temporalio/worker';

let runtimeReady = false;

/** The SDK's runtime logs errors only: the CLI's own output stays readable. Once per process. */
export function installQuietRuntime(): void {
  if (runtimeReady) return;
  runtimeReady = true;
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Installed already by the code that embeds this one (a test harness): keep its logger.
  }
}
