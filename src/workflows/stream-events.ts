import { defaultPayloadConverter } from '@temporalio/workflow';
import { decodePayloadWire, type WorkflowStream } from '@temporalio/workflow-streams/workflow';
import type { RunEvent } from '../common/events';

/** Decodes the stream's log from an offset: what a poller would have received. */
export function eventsSince(stream: WorkflowStream, fromOffset: number): Array<{ offset: number; event: RunEvent }> {
  const state = stream.getState();
  const start = Math.max(fromOffset - state.base_offset, 0);
  return state.log.slice(start).map((item, i) => ({
    offset: state.base_offset + start + i,
    event: defaultPayloadConverter.fromPayload<RunEvent>(decodePayloadWire(item.data)),
  }));
}
