import type { NormalizedCommand } from './command-normalize';
import type { Word } from './shell-parse';

/**
 * Commands that always need a human (unless the run bypasses permissions), as predicates over
 * normalised argv. Computed words are read as written, so `rm -rf $DIR` is still rm -rf.
 */
const ELEVATE: ReadonlySet<string> = new Set(['sudo', 'su', 'doas', 'pkexec']);
const POWER: ReadonlySet<string> = new Set(['shutdown', 'reboot', 'halt', 'poweroff']);
const INTERPRETERS = /^(sh|bash|zsh|dash|ksh|ash|fish|python[\d.]*|node|nodejs|perl|ruby|php|deno|bun)$/;
const DOWNLOADERS: ReadonlySet<string> = new Set(['curl', 'wget']);
const SQL_CLIENTS: ReadonlySet<string> = new Set(['psql', 'mysql', 'mariadb', 'sqlite3', 'sqlcmd', 'clickhouse-client']);
const SQL_DESTRUCTIVE = /\b(drop\s+(table|database|schema)|truncate(\s+table)?)\b/i;
const BLOCK_DEVICE = /^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|disk)/;
const FORK_BOMB = /(\S+)\s*\(\)\s*\{[^}]*\1\s*\|\s*\1\s*&/;

/** Short flags (cluster letters) and long flags of `args`, up to `--`. */
function flags(args: readonly string[]): { short: Set<string>; long: Set<string> } {
  const short = new Set<string>();
  const long = new Set<string>();
  for (const arg of args) {
    if (arg === '--') break;
    if (arg.startsWith('--')) long.add(arg.split('=')[0] as string);
    else if (/^-[A-Za-z]/.test(arg)) for (const letter of arg.slice(1)) short.add(letter);
  }
  return { short, long };
}

function gitDangerous(args: readonly string[]): boolean {
  const [subcommand, ...rest] = args;
  const { short, long } = flags(rest);
  switch (subcommand) {
    case 'push':
      return (
        short.has('f') ||
        short.has('d') ||
        ['--force', '--force-with-lease', '--force-if-includes', '--mirror', '--delete', '--prune'].some((f) => long.has(f)) ||
        rest.some((arg) => /^[+:]/.test(arg))
      );
    case 'reset':
      return long.has('--hard');
    case 'clean':
      return short.has('f') || long.has('--force');
    case 'branch':
      return short.has('D') || ((short.has('d') || long.has('--delete')) && (short.has('f') || long.has('--force')));
    default:
      return false;
  }
}

function argvDangerous(command: NormalizedCommand): boolean {
  if (command.wrappers.some((w) => ELEVATE.has(w))) return true;
  const [nameWord, ...argWords] = command.argv;
  if (!nameWord) return false;
  const name = nameWord.text;
  const args = argWords.map((w) => w.text);
  const { short, long } = flags(args);
  if (ELEVATE.has(name) || POWER.has(name)) return true;
  if (name === 'systemctl' || name === 'loginctl') return args.some((arg) => /^(poweroff|reboot|halt|kexec|suspend)$/.test(arg));
  if (name === 'init' || name === 'telinit') return args.some((arg) => /^[06]$/.test(arg));
  if (name === 'rm') return short.has('r') || short.has('R') || long.has('--recursive');
  if (name === 'git') return gitDangerous(args);
  if (name === 'find') return args.includes('-delete');
  if (name === 'chmod') return args.some((arg) => /^0*777$|^(a|ugo)?\+rwx$/.test(arg));
  if (name === 'chown' || name === 'chgrp') return short.has('R') || long.has('--recursive');
  if (/^mkfs/.test(name) || /^(wipefs|fdisk|sfdisk|parted|shred)$/.test(name)) return true;
  if (name === 'dd') return args.some((arg) => arg.startsWith('of='));
  if (SQL_CLIENTS.has(name)) return args.some((arg) => SQL_DESTRUCTIVE.test(arg));
  return args.some((arg) => BLOCK_DEVICE.test(arg) && name !== 'ls' && name !== 'stat' && name !== 'file');
}

/** An interpreter that reads its program from stdin or from a computed word: `sh`, `python3 -`, `sh -c "$(...)"`. */
function readsProgram(command: NormalizedCommand): boolean {
  const [name, ...args] = command.argv;
  if (command.wrappers.some((w) => INTERPRETERS.test(w))) return true;
  if (!name || !INTERPRETERS.test(name.text)) return false;
  if (args.length === 1 && args[0]?.text === '--version') return false;
  return args.every((arg) => arg.text.startsWith('-') || arg.text === '/dev/stdin') || args.some((arg) => !arg.literal);
}

/**
 * A command line is dangerous when one of its simple commands is, when it writes to a disk
 * device, when it holds a fork bomb, or when it downloads something and feeds it to an
 * interpreter (`curl ... | sh`, `wget -O- x | bash`, `bash <(curl ...)`, `sh -c "$(curl ...)"`).
 */
export function isDangerous(raw: string, commands: readonly NormalizedCommand[], redirects: readonly Word[]): boolean {
  if (FORK_BOMB.test(raw)) return true;
  if (redirects.some((target) => BLOCK_DEVICE.test(target.text))) return true;
  if (commands.some(argvDangerous)) return true;
  return commands.some(readsProgram) && commands.some((c) => DOWNLOADERS.has(c.argv[0]?.text ?? ''));
}
