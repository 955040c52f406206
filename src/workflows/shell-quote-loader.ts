import { getRandomStream } from '@temporalio/workflow';
import { setShellQuoteLoader } from '../loop/shell-tokenizer';

/** shell-quote's load-time draw comes from a named stream, never from the run's own `Math.random`. */
setShellQuoteLoader(() =>
  getRandomStream('shell-quote-load').with(
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    () => require('shell-quote') as typeof import('shell-quote'),
  ),
);
