import { existsSync } from 'node:fs';
import path from 'node:path';
import { createToolWorker } from '../../src/worker/create-worker';
import { NativeConnection } from '@temporalio/worker';
import { Harness } from '../support/harness';
import { waitFor } from '../support/wait-for';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.startWorker();
});
afterAll(() => h.close());

test('with toolTaskQueue, tools run only on the worker that polls that queue (the one holding the workspace)', async () => {
  const toolQueue = `${h.taskQueue}-workspace-host`;
  h.model.setScenario('remote-tools', [
    { toolCalls: [{ id: 'w', name: 'write_file', arguments: { file_path: 'from-tool-host.txt', content: 'hi' } }] },
    { text: 'written on the workspace host' },
  ]);
  const workspace = h.workspace();
  const handle = await h.start({ prompt: 'write', model: 'remote-tools', workspace, permissionMode: 'auto', toolTaskQueue: toolQueue });
  // The run's first activity on the tool queue (its start reads the workspace there: MCP servers,
  // AGENTS.md, hooks) waits, since no worker polls that queue yet.
  await waitFor(async () => ((await handle.describe()).raw.pendingActivities?.length ? true : undefined), 'an activity waiting on the tool queue');
  await new Promise((r) => setTimeout(r, 1000));
  expect(existsSync(path.join(workspace, 'from-tool-host.txt'))).toBe(false); // no worker polls that queue yet
  const connection = await NativeConnection.connect({ address: h.env.address });
  const toolWorker = await createToolWorker({ connection, namespace: 'default', taskQueue: toolQueue });
  try {
    await toolWorker.runUntil(handle.result());
  } finally {
    await connection.close();
  }
  expect(existsSync(path.join(workspace, 'from-tool-host.txt'))).toBe(true);
});
