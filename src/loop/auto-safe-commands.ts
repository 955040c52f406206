/**
 * Read-only commands that run without asking, each with the options it may take. Checked on the
 * words as written (no wrappers, no path to the program: `./ls` is a workspace script), and only
 * for literal commands. Test runners and build scripts are not here: they run the repository's code.
 */
interface OptionList {
  /** Single-letter options, clusters allowed (`-la`). */
  letters: string;
  /** Letters whose value is the rest of the cluster or the next word (`-n 5`, `-n5`). */
  valueLetters?: string;
  /** Long options (`--color` and `--color=auto` alike). */
  long?: readonly string[];
  /** Long options whose value may be the next word. */
  valueLong?: readonly string[];
  /** `-5` (head, tail). */
  numeric?: boolean;
}

const LISTS: Readonly<Record<string, OptionList>> = {
  ls: {
    letters: 'aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvwxXZ1',
    valueLetters: 'IwT',
    long: ['--all', '--almost-all', '--color', '--classify', '--directory', '--human-readable', '--inode', '--recursive', '--reverse', '--size', '--sort', '--time', '--time-style', '--group-directories-first', '--full-time', '--ignore', '--literal', '--quoting-style', '--si', '--width', '--format', '--indicator-style', '--hide'],
  },
  pwd: { letters: 'LP' },
  cat: { letters: 'AbeEnstTuv', long: ['--number', '--number-nonblank', '--show-all', '--show-ends', '--show-tabs', '--squeeze-blank', '--show-nonprinting'] },
  head: { letters: 'qvz', valueLetters: 'nc', long: ['--lines', '--bytes', '--quiet', '--silent', '--verbose', '--zero-terminated'], valueLong: ['--lines', '--bytes'], numeric: true },
  tail: {
    letters: 'fFqvz',
    valueLetters: 'ncs',
    long: ['--lines', '--bytes', '--quiet', '--silent', '--verbose', '--follow', '--retry', '--zero-terminated', '--sleep-interval'],
    valueLong: ['--lines', '--bytes', '--sleep-interval'],
    numeric: true,
  },
  wc: { letters: 'clmwL', long: ['--bytes', '--chars', '--lines', '--words', '--max-line-length'] },
  echo: { letters: 'neE' },
  which: { letters: 'a' },
  whoami: { letters: '' },
  // Not -s/--set: it would set the clock.
  date: { letters: 'uRI', valueLetters: 'dr', long: ['--utc', '--universal', '--rfc-email', '--iso-8601', '--rfc-3339', '--date', '--reference'], valueLong: ['--date', '--reference'] },
  // Not -o: it writes its listing to a file.
  tree: { letters: 'adflifsphugDFCnJXQNvtrcxA', valueLetters: 'LIP', long: ['--noreport', '--dirsfirst', '--charset', '--gitignore', '--prune', '--du', '--si', '--sort', '--filelimit'], valueLong: ['--charset', '--sort', '--filelimit'] },
  // Not -C: it compiles a magic file.
  file: { letters: 'bcdEhiklLNnprsSz0', valueLetters: 'efFmP', long: ['--brief', '--mime', '--mime-type', '--mime-encoding', '--dereference', '--no-dereference', '--uncompress', '--keep-going', '--raw', '--special-files', '--extension', '--apple'] },
  stat: { letters: 'fLt', valueLetters: 'c', long: ['--dereference', '--file-system', '--format', '--printf', '--terse'], valueLong: ['--format', '--printf'] },
  du: { letters: 'abchHklLmPsSx0', valueLetters: 'dBtX', long: ['--all', '--apparent-size', '--bytes', '--total', '--human-readable', '--si', '--summarize', '--max-depth', '--threshold', '--exclude', '--time', '--inodes'], valueLong: ['--max-depth', '--exclude'] },
  df: { letters: 'ahHiklPTv', valueLetters: 'Btx', long: ['--all', '--human-readable', '--si', '--inodes', '--local', '--portability', '--print-type', '--total', '--output', '--type', '--exclude-type'] },
  grep: {
    letters: 'EFGPiyvwxcoqsnhHlLrRzZaIbUT',
    valueLetters: 'efmABCdD',
    long: ['--extended-regexp', '--fixed-strings', '--basic-regexp', '--perl-regexp', '--regexp', '--file', '--ignore-case', '--no-ignore-case', '--invert-match', '--word-regexp', '--line-regexp', '--count', '--color', '--colour', '--files-without-match', '--files-with-matches', '--max-count', '--only-matching', '--quiet', '--silent', '--no-messages', '--byte-offset', '--with-filename', '--no-filename', '--label', '--line-number', '--initial-tab', '--null', '--null-data', '--after-context', '--before-context', '--context', '--text', '--binary-files', '--devices', '--directories', '--exclude', '--exclude-from', '--exclude-dir', '--include', '--recursive', '--dereference-recursive', '--line-buffered', '--binary'],
    valueLong: ['--regexp', '--file', '--max-count', '--after-context', '--before-context', '--context', '--exclude', '--include', '--exclude-dir'],
  },
  // Not --pre, --pre-glob, -z/--search-zip or --hostname-bin: they run other programs.
  rg: {
    letters: 'iSswxvclnNHIoFUuLqabhp0.',
    valueLetters: 'egtTABCmMrjEd',
    long: ['--ignore-case', '--smart-case', '--case-sensitive', '--word-regexp', '--line-regexp', '--invert-match', '--count', '--count-matches', '--files-with-matches', '--files-without-match', '--files', '--line-number', '--no-line-number', '--with-filename', '--no-filename', '--heading', '--no-heading', '--only-matching', '--fixed-strings', '--multiline', '--multiline-dotall', '--follow', '--hidden', '--no-ignore', '--no-ignore-vcs', '--no-ignore-dot', '--no-ignore-parent', '--quiet', '--regexp', '--glob', '--iglob', '--type', '--type-not', '--type-list', '--after-context', '--before-context', '--context', '--max-count', '--max-depth', '--max-columns', '--max-filesize', '--color', '--colors', '--json', '--vimgrep', '--stats', '--sort', '--sortr', '--trim', '--null', '--pcre2', '--engine', '--replace', '--passthru', '--text', '--column', '--no-messages', '--one-file-system', '--threads', '--unrestricted', '--encoding', '--binary', '--debug', '--version', '--help'],
    valueLong: ['--regexp', '--glob', '--iglob', '--type', '--type-not', '--after-context', '--before-context', '--context', '--max-count', '--max-depth', '--max-columns', '--max-filesize', '--color', '--colors', '--sort', '--sortr', '--engine', '--replace', '--threads', '--encoding'],
  },
};

/** find's primaries and options that only read and print to standard output. */
const FIND_WORDS: ReadonlySet<string> = new Set([
  '-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-lname', '-ilname', '-regex', '-iregex', '-regextype',
  '-type', '-xtype', '-maxdepth', '-mindepth', '-size', '-empty', '-perm', '-user', '-group', '-uid', '-gid', '-nouser', '-nogroup',
  '-mtime', '-mmin', '-atime', '-amin', '-ctime', '-cmin', '-newer', '-anewer', '-cnewer', '-used', '-links', '-inum', '-samefile',
  '-readable', '-writable', '-executable', '-fstype', '-true', '-false', '-not', '-a', '-and', '-o', '-or',
  '-print', '-print0', '-printf', '-ls', '-prune', '-quit', '-depth', '-d', '-follow', '-xdev', '-mount', '-noleaf', '-daystart',
  '-ignore_readdir_race', '-noignore_readdir_race', '-L', '-P', '-H', '(', ')', '!', ',',
]);

const VERSION_ONLY: ReadonlySet<string> = new Set(['node', 'python', 'python3', 'go', 'cargo', 'tsc', 'npm', 'rustc']);
const GIT_READ_ONLY: ReadonlySet<string> = new Set(['status', 'diff', 'log', 'show', 'rev-parse', 'ls-files', 'blame', 'branch']);
/** Options that write files, run programs or change which repository or config is used. */
const GIT_FORBIDDEN = /^(-c|-C|-o|-O|--output.*|--ext-diff|--textconv|--exec-path.*|--git-dir.*|--work-tree.*|--config-env.*|--open-files-in-pager.*|--upload-pack.*|--exec.*)$/;
const BRANCH_OPTIONS: ReadonlySet<string> = new Set(['-a', '--all', '-r', '--remotes', '-l', '--list', '-v', '-vv', '--verbose', '--show-current', '--color', '--no-color', '--column', '--no-column', '--abbrev', '--no-abbrev', '-i', '--ignore-case', '--omit-empty']);
const BRANCH_VALUE_OPTIONS: ReadonlySet<string> = new Set(['--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--sort', '--format']);

function optionsAllowed(list: OptionList, args: readonly string[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') return true;
    if (!arg.startsWith('-') || arg === '-') continue;
    if (arg.startsWith('--')) {
      const name = arg.split('=')[0] as string;
      if (!list.long?.includes(name)) return false;
      if (!arg.includes('=') && list.valueLong?.includes(name)) i++;
      continue;
    }
    if (list.numeric && /^-\d+$/.test(arg)) continue;
    for (let j = 1; j < arg.length; j++) {
      const letter = arg.charAt(j);
      if (list.valueLetters?.includes(letter)) {
        if (j === arg.length - 1) i++;
        break;
      }
      if (!list.letters.includes(letter)) return false;
    }
  }
  return true;
}

function gitBranchListing(args: readonly string[]): boolean {
  let listing = false;
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const name = arg.split('=')[0] as string;
    if (BRANCH_VALUE_OPTIONS.has(name)) {
      if (!arg.includes('=')) i++;
    } else if (BRANCH_OPTIONS.has(name)) {
      if (name === '-l' || name === '--list') listing = true;
    } else if (arg.startsWith('-')) {
      return false;
    } else {
      positional.push(arg);
    }
  }
  // Without --list, a name creates a branch.
  return positional.length === 0 || listing;
}

function gitReadOnly(args: readonly string[]): boolean {
  const [subcommand, ...rest] = args;
  if (subcommand === undefined || !GIT_READ_ONLY.has(subcommand)) return false;
  if (rest.some((arg) => GIT_FORBIDDEN.test(arg))) return false;
  return subcommand === 'branch' ? gitBranchListing(rest) : true;
}

/** True when the simple command `argv`, as written, only reads. */
export function isAutoSafeArgv(argv: readonly string[]): boolean {
  const [name, ...args] = argv;
  if (name === undefined) return false;
  if (VERSION_ONLY.has(name)) return args.length === 1 && args[0] === '--version';
  if (name === 'git') return gitReadOnly(args);
  if (name === 'find') return args.every((arg) => !arg.startsWith('-') || FIND_WORDS.has(arg));
  const list = Object.prototype.hasOwnProperty.call(LISTS, name) ? LISTS[name] : undefined;
  return list !== undefined && optionsAllowed(list, args);
}
