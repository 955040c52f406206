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
