import { sha256Hex } from './sha256';

/**
 * What an approver was shown, as one value: SHA-256 of the tool's name and its input as exact
 * canonical JSON (keys sorted at every depth, strings untouched). An answer that carries it
 * approves only a question with this very input; the workflow, the page, `approve` and the
 * terminal all compute it here.
 */
export function inputDigest(tool: string, input: unknown): string {
  return sha256Hex(`${JSON.stringify(tool)}\n${exactJson(input)}`);
}

function exactJson(value: unknown, depth = 0): string {
  if (depth > 100) return '"[too deep]"';
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => exactJson(item, depth + 1)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${exactJson(record[key], depth + 1)}`).join(',')}}`;
}
