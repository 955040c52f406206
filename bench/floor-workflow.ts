/**
 * The SDK's floor, for the bench's `floor` section: a workflow that does nothing but what an agent
 * iteration's commands are (an activity, then a local activity), with none of BareAgent's code.
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';

interface FloorActivities {
  tick(): Promise<void>;
  read(): Promise<string>;
}

const { tick } = proxyActivities<FloorActivities>({ startToCloseTimeout: '10 seconds' });
const { read } = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '10 seconds' });

export async function floorLoop(iterations: number, withLocalActivity: boolean): Promise<void> {
  for (let i = 0; i < iterations; i++) {
    await tick();
    if (withLocalActivity) await read();
  }
}
