import type { WorkflowHandle } from '@temporalio/client';
import type { PendingPermission } from '../../src/common/wire';
import { statusQuery } from '../../src/common/contract';

export async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The permission request a run waits on now (the first, when several); `id`: the request's own, or the tool call's it gates. */
export function pendingRequest(handle: WorkflowHandle, id?: string): Promise<PendingPermission> {
  return waitFor(async () => {
    const status = await handle.query(statusQuery);
    return status.pendingPermissions.find((p) => id === undefined || p.requestId === id || p.toolCallId === id);
  }, `a pending permission request${id ? ` ${id}` : ''} in ${handle.workflowId}`);
}

/** The runtime's request id for the question about tool call `toolCallId`, once it is asked. */
export async function requestIdFor(handle: WorkflowHandle, toolCallId: string): Promise<string> {
  return (await pendingRequest(handle, toolCallId)).requestId;
}
