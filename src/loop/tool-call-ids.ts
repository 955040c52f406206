import type { ToolCall } from '../common/messages';

/**
 * A tool result is matched to its call by the call's id, so every call of a reply needs an id of
 * its own: an empty id matches nothing, and two calls sharing one would share a result.
 * Such calls get `call_<step>_<n>` (n counting from 1), made unique against the reply's other ids.
 */
export function uniqueToolCallIds(calls: readonly ToolCall[], step: number): ToolCall[] {
  const kept = new Set<string>();
  const owners = new Map<string, number>();
  calls.forEach((call, index) => {
    if (call.id !== '' && !owners.has(call.id)) owners.set(call.id, index);
  });
  let counter = 0;
  return calls.map((call, index) => {
    if (call.id !== '' && owners.get(call.id) === index) {
      kept.add(call.id);
      return call;
    }
    let id: string;
    do id = `call_${step}_${++counter}`;
    while (owners.has(id) || kept.has(id));
    kept.add(id);
    return { ...call, id };
  });
}
