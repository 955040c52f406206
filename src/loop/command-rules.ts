import { matchKey, normalizeCommand, type NormalizedCommand } from './command-normalize';
import type { PermissionRule } from './permission-rules';
import { parseShell, type Word } from './shell-parse';

/** One simple command of a rule's argument, normalised like the commands it is compared with. */
interface CommandPattern {
  argv: string[];
  prefix: boolean;
  /** `bash(git pu*)`: the last word is itself a prefix (not after a space: `bash(git push *)`). */
  lastWordPrefix: boolean;
}

export type RuleMatch = 'yes' | 'no' | 'maybe';

/**
 * A rule's argument, tokenized and normalised. A rule that names a chain (`bash(make a && make b)`)
 * becomes one pattern per simple command, and only the last one keeps the rule's `*`.
 */
export function commandPatterns(rule: PermissionRule): CommandPattern[] {
  const argument = rule.argument ?? '';
  const parsed = parseShell(argument);
  const lists: string[][] = parsed.parsed
    ? parsed.commands.flatMap((c) => normalizeCommand(c.words)).map((c) => matchKey(c.argv).map((w) => w.text))
    : [argument.trim().split(/\s+/)];
  const nonEmpty = lists.filter((argv) => argv.length > 0);
  return nonEmpty.map((argv, index) => {
    const last = index === nonEmpty.length - 1;
    return { argv, prefix: rule.prefix && last, lastWordPrefix: rule.prefix && last && !/\s$/.test(argument) };
  });
}

function matchPattern(pattern: CommandPattern, key: readonly Word[]): RuleMatch {
  for (let i = 0; i < pattern.argv.length; i++) {
    const wanted = pattern.argv[i] as string;
    const w = key[i];
    if (w === undefined) return 'no';
    if (!w.literal) return 'maybe';
    const lastWord = i === pattern.argv.length - 1;
    const ok = lastWord && pattern.lastWordPrefix ? w.text.startsWith(wanted) : w.text === wanted;
    if (!ok) return 'no';
  }
  return pattern.prefix || key.length === pattern.argv.length ? 'yes' : 'no';
}

/** Whether `rule` matches the normalised command: `maybe` when a computed word hides the answer. */
export function matchCommandRule(rule: PermissionRule, command: NormalizedCommand): RuleMatch {
  if (rule.prefix && (rule.argument ?? '') === '') return 'yes';
  const key = matchKey(command.argv);
  let result: RuleMatch = 'no';
  for (const pattern of commandPatterns(rule)) {
    const match = matchPattern(pattern, key);
    if (match === 'yes') return 'yes';
    if (match === 'maybe') result = 'maybe';
  }
  if (key[0] && !key[0].literal) result = 'maybe';
  return result === 'no' && !command.certain ? 'maybe' : result;
}
