import { z } from 'zod';

/** The thresholds and the message injected at the first (ARCHITECTURE.md, "Loop stops"). */
export const LOOP_WARN_AT = 3;
export const LOOP_STOP_AT = 5;
export const REPEATED_ACTION_MESSAGE = 'Repeated action detected; diagnose before retrying';

/** Bounds on the state carried across continue-as-new: forget stale actions, cap the rest. */
export const LOOP_FORGET_AFTER_STEPS = 50;
export const LOOP_MAX_ENTRIES = 200;

const LoopEntry = z.object({
  /** Occurrences since the evidence last changed (1 = this is the first). */
  count: z.number().int().positive(),
  /** Evidence hash of the result at the first of those occurrences. */
  evidence: z.string(),
  firstStep: z.number().int(),
  lastStep: z.number().int(),
});

/** Plain JSON, keyed by action fingerprint: carried as it is across continue-as-new. */
export const LoopDetectorState = z.object({ entries: z.record(z.string(), LoopEntry) });
export type LoopDetectorState = z.infer<typeof LoopDetectorState>;

export interface LoopObservation {
  fingerprint: string;
  evidence: string;
  step: number;
}

export type LoopVerdict =
  | { kind: 'ok' }
  | { kind: 'warn'; count: number; message: typeof REPEATED_ACTION_MESSAGE }
  | { kind: 'stop'; count: number; reason: 'NO_PROGRESS' };

export function createLoopDetector(): LoopDetectorState {
  return { entries: {} };
}

/**
 * One executed action and the evidence it produced. The same fingerprint with the same
 * evidence as at its first occurrence counts up; a different result is progress (the same
 * grep on a changed file) and starts the count again from 1 with that result. `newEvidence`
 * (first time, or a changed result) is what a step record's `evidence_delta` counts.
 */
export function observe(
  state: LoopDetectorState,
  observation: LoopObservation,
): { state: LoopDetectorState; verdict: LoopVerdict; newEvidence: boolean } {
  const { fingerprint, evidence, step } = observation;
  const live = forgetStale(state.entries, step);
  const previous = live[fingerprint];
  const entry =
    previous && previous.evidence === evidence
      ? { ...previous, count: previous.count + 1, lastStep: step }
      : { count: 1, evidence, firstStep: step, lastStep: step };
  const entries = capEntries(live, fingerprint, entry);
  return { state: { entries }, verdict: verdictFor(entry.count), newEvidence: entry.count === 1 };
}

export function verdictFor(count: number): LoopVerdict {
  if (count >= LOOP_STOP_AT) return { kind: 'stop', count, reason: 'NO_PROGRESS' };
  if (count >= LOOP_WARN_AT) return { kind: 'warn', count, message: REPEATED_ACTION_MESSAGE };
  return { kind: 'ok' };
}

type Entries = LoopDetectorState['entries'];
type LoopEntry = z.infer<typeof LoopEntry>;

function forgetStale(entries: Entries, step: number): Entries {
  return Object.fromEntries(
    Object.entries(entries).filter(([, entry]) => step - entry.lastStep <= LOOP_FORGET_AFTER_STEPS),
  );
}

/** The observed entry always stays; of the others, the least recently seen go first (ties by fingerprint). */
function capEntries(entries: Entries, fingerprint: string, entry: LoopEntry): Entries {
  const others = Object.entries(entries).filter(([key]) => key !== fingerprint);
  const kept =
    others.length < LOOP_MAX_ENTRIES
      ? others
      : others
          .sort(([a, x], [b, y]) => y.lastStep - x.lastStep || (a < b ? -1 : a > b ? 1 : 0))
          .slice(0, LOOP_MAX_ENTRIES - 1);
  return Object.fromEntries([...kept, [fingerprint, entry]]);
}
