/** Commands that always need a human (unless the run bypasses permissions). */
export const DANGEROUS_BASH_PATTERNS: readonly RegExp[] = [
  // The recursive flag may follow other flags or operands: `rm -f -r build` is still rm -r.
  /\brm\s+(?:[^;&|\n]*\s)?(-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)\b/,
  /\bgit\s+push\b.*(--force\b|-f\b|--force-with-lease\b)/,
  /\bgit\s+reset\s+--hard\b/,
  /\bgit\s+clean\s+-[a-zA-Z]*f/,
  /\bdrop\s+(table|database)\b/i,
  /\btruncate\s+table\b/i,
  /\b(curl|wget)\b[^|]*\|\s*(sudo\s+)?(ba|z|da)?sh\b/,
  /\bchmod\s+(-R\s+)?777\b/,
  /\bmkfs(\.\w+)?\b/,
  /\bdd\s+if=/,
  /\bfind\b.*\s-delete\b/,
  /\bsudo\b/,
  /\bshutdown\b|\breboot\b/,
  /:\(\)\s*\{\s*:\|:&\s*\};:/,
  />\s*\/dev\/sd[a-z]/,
];

/** Read-only commands that run without asking in `default` mode. */
export const AUTO_SAFE_BASH_PATTERNS: readonly RegExp[] = [
  /^(ls|pwd|cat|head|tail|wc|echo|which|whoami|date|tree|file|stat|du|df)(\s|$)/,
  /^git\s+(status|diff|log|show|branch|rev-parse)(\s|$)/,
  /^(npm|pnpm|yarn)\s+(test|run\s+test|run\s+lint|ls)(\s|$)/,
  /^(grep|rg|find)\s/,
  /^(node|python3?|go|cargo|tsc)\s+--version$/,
];

/**
 * Chaining, redirection or substitution turns a safe command into an arbitrary one; a newline
 * separates commands just as `;` does.
 */
const SHELL_COMPOSITION = /[;&|`<>\n\r]|\$\(/;

export function isComposedCommand(command: string): boolean {
  return SHELL_COMPOSITION.test(command);
}

/**
 * The simple commands inside a composed one, roughly (split at separators, pipes, groups and
 * substitutions), so that a deny rule also catches `ls && git push`. Best effort, not a parser.
 */
export function commandSegments(command: string): string[] {
  return command
    .split(/[;&|`\n\r(){}]/)
    .map((segment) => segment.trim())
    .filter((segment) => segment.length > 0);
}

export function isDangerousCommand(command: string): boolean {
  return DANGEROUS_BASH_PATTERNS.some((pattern) => pattern.test(command));
}

export function isAutoSafeCommand(command: string): boolean {
  const trimmed = command.trim();
  if (isComposedCommand(trimmed)) return false;
  if (/^find\s/.test(trimmed) && /\s-(exec|execdir|delete|ok)\b/.test(trimmed)) return false;
  return AUTO_SAFE_BASH_PATTERNS.some((pattern) => pattern.test(trimmed));
}
