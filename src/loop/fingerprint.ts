import { fnv1a64 } from './hash';

/**
 * `fingerprint = hash(normalize(action.name, action.args, relevantState))`: what the loop detector compares.
 * Two calls that differ only in key order, letter case of the tool name or whitespace inside
 * a string argument are the same action.
 */
export function actionFingerprint(tool: string, input: unknown, state?: string): string {
  return fnv1a64(`${JSON.stringify(normalizeToolName(tool))}\u0000${canonicalArgs(input)}\u0000${state ?? ''}`);
}

/** The evidence an action produced: a tool result's content, hashed as it is (no normalising). */
export function evidenceHash(result: string): string {
  return fnv1a64(result);
}

export const normalizeToolName = (tool: string): string => tool.trim().toLowerCase();

/**
 * Arguments as canonical text: object keys sorted at every depth, undefined fields dropped,
 * strings trimmed with inner whitespace runs collapsed to one space, numbers as they are.
 */
export function canonicalArgs(value: unknown): string {
  return canonical(value, []);
}

function canonical(value: unknown, stack: unknown[]): string {
  if (typeof value === 'string') return JSON.stringify(value.trim().replace(/\s+/g, ' '));
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null || typeof value !== 'object') return 'null';
  if (stack.includes(value)) return '"[circular]"';
  stack.push(value);
  const text = Array.isArray(value)
    ? `[${value.map((item) => canonical(item, stack)).join(',')}]`
    : `{${Object.keys(value)
        .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
        .sort()
        .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key], stack)}`)
        .join(',')}}`;
  stack.pop();
  return text;
}
