import { ACTIVITY_TOOL_NAMES } from '../common/tool-schemas';

/**
 * Every tool the workflow may run as an activity has one on this worker: a missing one fails
 * here, at worker start, naming it, and not at a run's first call of it.
 */
export function checkToolActivities(activities: object, userTools: readonly string[] = []): void {
  const registered = activities as Record<string, unknown>;
  const missing = [...ACTIVITY_TOOL_NAMES, ...userTools].filter((name) => typeof registered[name] !== 'function');
  if (missing.length > 0) throw new Error(`BareAgent worker: no activity for the tool${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
}
