import { types } from 'node:util';
import type { CheckpointResult } from '../common/checkpoint';
import type { CommandResult } from '../common/jobs';
import type { ToolOutcome } from '../common/tool-outcome';
import type { Redactor } from './redact';

type Activity<A extends unknown[], R> = (...args: A) => Promise<R>;

/**
 * An activity whose failures, and the fields of its result that carry text from outside (a
 * command's output, a file, a provider's message), have the worker's secrets redacted before
 * they reach the history. `redactResult` names those fields: a model's response is left as is.
 */
export function withRedaction<A extends unknown[], R>(
  fn: Activity<A, R>,
  redactor: Redactor,
  redactResult: (result: R, redactor: Redactor) => R = (result) => result,
): Activity<A, R> {
  if (!redactor.active) return fn;
  return async (...args: A): Promise<R> => {
    let result: R;
    try {
      result = await fn(...args);
    } catch (err) {
      throw redactError(err, redactor);
    }
    return redactResult(result, redactor);
  };
}

export function redactToolOutcome(outcome: ToolOutcome, redactor: Redactor): ToolOutcome {
  const checkpoint = outcome.checkpoint ? { checkpoint: redactCheckpoint(outcome.checkpoint, redactor) } : {};
  return outcome.ok ? { ...outcome, output: redactor.redact(outcome.output), ...checkpoint } : { ...outcome, message: redactor.redact(outcome.message), ...checkpoint };
}

/** A checkpoint's summary names files, its error a git message: either could hold a worker secret. */
export function redactCheckpoint(result: CheckpointResult, redactor: Redactor): CheckpointResult {
  return result.ok ? { ...result, summary: redactor.redact(result.summary) } : { ...result, error: redactor.redact(result.error) };
}

export function redactCommandResult(result: CommandResult, redactor: Redactor): CommandResult {
  return { ...result, output: redactor.redact(result.output) };
}

const MAX_CAUSES = 5;

/**
 * Temporal records a failed activity's message, stack and cause chain, and an ApplicationFailure's
 * details: all are redacted in place, so the error keeps its class (its retry decision, its type).
 */
export function redactError(err: unknown, redactor: Redactor, depth = 0): unknown {
  if (typeof err === 'string') return redactor.redact(err);
  // Not `instanceof Error`: errors from Node's core or another realm (a vm context) fail that test.
  if (!isErrorLike(err) || depth > MAX_CAUSES) return err;
  err.message = redactor.redact(err.message);
  if (err.stack) err.stack = redactor.redact(err.stack);
  if (err.cause !== undefined) err.cause = redactError(err.cause, redactor, depth + 1);
  const details = (err as { details?: unknown }).details;
  if (Array.isArray(details)) Object.assign(err, { details: details.map((detail) => redactValue(detail, redactor, 0)) });
  return err;
}

function isErrorLike(err: unknown): err is Error {
  return types.isNativeError(err) || err instanceof Error;
}

/** Every string inside plain data (an ApplicationFailure's details), keys kept. */
function redactValue(value: unknown, redactor: Redactor, depth: number): unknown {
  if (typeof value === 'string') return redactor.redact(value);
  if (depth > 10 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redactor, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactValue(item, redactor, depth + 1)]));
}
