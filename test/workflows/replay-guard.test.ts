import { readFileSync } from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { quietRuntime } from '../support/harness';

quietRuntime();

test('a non-deterministic change to the workflow code fails the replay of a recorded history', async () => {
  const bundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('../support/nondeterministic/workflows'),
    logger: { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
  });
  const file = path.join(__dirname, '../histories/tools-round-trip.json');
  const history = historyFromJSON(JSON.parse(readFileSync(file, 'utf8')));
  await expect(Worker.runReplayHistory({ workflowBundle: bundle }, history, 'history-tools-round-trip')).rejects.toBeInstanceOf(
    DeterminismViolationError,
  );
});
