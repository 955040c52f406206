import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The activity type of each local activity a history ran, in order, read from its marker's details. */
export function localActivityTypes(events: HistoryEvent[] | null | undefined): string[] {
  return (events ?? []).flatMap((e) => {
    const marker = e.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_local_activity') return [];
    const data = marker.details?.data?.payloads?.[0]?.data;
    return [(JSON.parse(Buffer.from(data ?? []).toString()) as { activity_type: string }).activity_type];
  });
}

/** The activity type of each ordinary activity a history scheduled, in order. */
export function scheduledActivityTypes(events: HistoryEvent[] | null | undefined): string[] {
  return (events ?? []).flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
}

/**
 * A history as one line per event (`12 MarkerRecorded core_local_activity readRunEnvironment`), for
 * a test's failure message: a replay failure is read from the order of events, which CI's log then
 * keeps.
 */
export function eventLines(events: HistoryEvent[] | null | undefined): string {
  return (events ?? [])
    .map((e) => {
      const type = Object.keys(e).find((key) => key.endsWith('EventAttributes') && (e as Record<string, unknown>)[key]) ?? '?';
      const marker = e.markerRecordedEventAttributes;
      const detail = marker
        ? `${marker.markerName ?? ''} ${marker.markerName === 'core_local_activity' ? localActivityTypes([e])[0] : markerText(marker.details)}`
        : (e.activityTaskScheduledEventAttributes?.activityType?.name ?? e.workflowTaskCompletedEventAttributes?.identity ?? '');
      return `${String(e.eventId)} ${type.replace(/EventAttributes$/, '')} ${detail}`.trim();
    })
    .join('\n');
}

/** A marker's first detail as text (a patch marker's `{"id":…,"deprecated":…}`). */
function markerText(details: Record<string, temporal.api.common.v1.IPayloads> | null | undefined): string {
  const first = Object.values(details ?? {})[0]?.payloads?.[0]?.data;
  return first ? Buffer.from(first).toString().slice(0, 120) : '';
}
