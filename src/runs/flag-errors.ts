import type { z } from 'zod';

/** The input field each run flag fills, longest first where one is inside another. */
const FLAGS: Array<[field: string, flag: string]> = [
  ['budgets.maxTokens', '--max-tokens'],
  ['budgets.maxCostUsd', '--max-cost'],
  ['budgets.maxWallClock', '--max-wall-clock'],
  ['permissionRules.allow', '--allow'],
  ['permissionRules.deny', '--deny'],
  ['sandbox.network', '--network'],
  ['sandbox.readOnlyPaths', '--read-path'],
  ['notify.webhook', '--notify'],
  ['maxIterations', '--max-iterations'],
  ['approvalTimeout', '--approval-timeout'],
  ['permissionMode', '--mode'],
  ['profile', '--profile'],
  ['finalAnswer', '--final-answer'],
  ['attachMentionedPaths', '--attach'],
  ['appendSystemPrompt', '--append-system'],
  ['systemPrompt', '--system'],
  ['workspace', '--workspace'],
  ['model', '--model'],
  ['prompt', 'the prompt'],
];

/** What a number flag must be, said once whatever zod found wrong with it. */
const NUMBER_RULES: Record<string, string> = {
  '--max-iterations': 'must be a positive integer (at most 100000)',
  '--max-tokens': 'must be a positive integer',
  '--max-cost': 'must be a positive number of USD, such as 0.50',
};

/**
 * A rejected run input, in the terms of the flags it came from (`--max-iterations must be a
 * positive integer`), not the input's field names and zod's wording; a field no flag fills keeps
 * its field name.
 */
export function flagErrors(error: z.ZodError): string {
  const lines = error.issues.map((issue) => {
    const path = issue.path.join('.');
    const flag = FLAGS.find(([field]) => path === field || path.startsWith(`${field}.`))?.[1];
    if (!flag) return `${path || 'input'}: ${issue.message}`;
    return `${flag} ${NUMBER_RULES[flag] ?? `: ${issue.message}`}`.replace(' :', ':');
  });
  return [...new Set(lines)].join('\n');
}
