/** Workflows for the SDK patch test: one that never yields once told to, one that ends at once. */
import { condition, defineSignal, setHandler } from '@temporalio/workflow';

export const spinSignal = defineSignal('spin');

export async function spinsOnSignal(): Promise<string> {
  let spin = false;
  setHandler(spinSignal, () => {
    spin = true;
  });
  await condition(() => spin);
  // Never yields: only the worker's deadlock watchdog can end this activation.
  for (;;) {
    /* spin */
  }
}

export async function answersAtOnce(name: string): Promise<string> {
  return `hello ${name}`;
}

/** Waits on a promise chain: the stack-trace query has something to show. */
export async function waitsForSignal(): Promise<string> {
  let done = false;
  setHandler(spinSignal, () => {
    done = true;
  });
  await condition(() => done);
  return 'done';
}
