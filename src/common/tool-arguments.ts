import { describeIssues } from './input';
import type { ToolDescriptor } from './tool-schemas';
import type { z } from 'zod';

/**
 * A call's arguments checked against its tool's schema, built-in or the worker's own: the same
 * error text for both (`<field>: <what is wrong>`).
 */
export function checkArguments(tool: ToolDescriptor, schema: z.ZodType, input: unknown): { args: unknown } | { invalid: string } {
  const parsed = schema.safeParse(input);
  if (!parsed.success) return { invalid: describeIssues(parsed.error) };
  const blank = blankArgument(tool, parsed.data);
  return blank ? { invalid: `${blank}: must not be blank` } : { args: parsed.data };
}

/** A blank command or path names nothing a human could judge: `bash {"command":" "}` is not a call to approve. */
function blankArgument(tool: ToolDescriptor, input: unknown): string | undefined {
  if (!input || typeof input !== 'object') return undefined;
  const args = input as Record<string, unknown>;
  for (const field of [tool.commandArgument, tool.pathArgument]) {
    if (field === undefined) continue;
    const value = args[field];
    if (typeof value === 'string' && value.trim() === '') return field;
  }
  return undefined;
}
