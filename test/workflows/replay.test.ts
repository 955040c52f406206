import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { quietRuntime } from '../support/harness';
import { tracingSinks } from '../../src/worker/tracing-sinks';
import { readTestEnv } from '../support/test-env';

quietRuntime();

const dir = path.join(__dirname, '../histories');
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

test('recorded histories exist for the workflow features', () => {
  expect(files.length).toBeGreaterThanOrEqual(3);
});

test.each(files)('%s replays with the current workflow code', async (file) => {
  const history = historyFromJSON(JSON.parse(readFileSync(path.join(dir, file), 'utf8')));
  // The recorder ran each one as `history-<name>`; child workflow ids derive from it.
  const workflowId = `history-${path.basename(file, '.json')}`;
  await Worker.runReplayHistory({ workflowBundle: { codePath: readTestEnv().bundlePath }, sinks: tracingSinks(undefined) }, history, workflowId);
});
