import { matchKey, normalizeCommand } from '../../src/loop/command-normalize';
import { parseShell } from '../../src/loop/shell-parse';
import { canonicalPath, canonicalPrefix } from '../../src/loop/workspace-path';
import { isAutoSafeArgv } from '../../src/loop/auto-safe-commands';

const argvs = (command: string) => parseShell(command).commands.map((c) => c.words.map((w) => w.text));
const normalized = (command: string) =>
  parseShell(command).commands.flatMap((c) => normalizeCommand(c.words)).map((c) => c.argv.map((w) => w.text));

describe('parseShell', () => {
  test.each([
    ['ls -la', [['ls', '-la']]],
    ['ls && git push; echo "a b" | cat', [['ls'], ['git', 'push'], ['echo', 'a b'], ['cat']]],
    ['ls\ngit push', [['ls'], ['git', 'push']]],
    ['git commit -m "a\nb"', [['git', 'commit', '-m', 'a\nb']]],
    ['echo $(git push)', [['echo', '$'], ['git', 'push'], ['git', 'push']]],
    ['git push > out 2>&1', [['git', 'push', '2']]],
    ['ls # git push', [['ls']]],
  ])('%j → %j', (command, expected) => {
    expect(argvs(command)).toEqual(expected);
  });

  test.each([
    ['ls -la', true],
    ['find . -name "*.ts"', true],
    ["grep 'a|b' x", true],
    ['ls *.ts', false],
    ['echo $HOME', false],
    ['echo "$HOME"', false],
    ['echo `id`', false],
    ['ls > x', false],
    ['ls ~', false],
    ['ls {a,b}', false],
    ['echo a\\ b', false],
    ['ls\nls', false],
  ])('%j literal: %s', (command, literal) => {
    expect(parseShell(command).literal).toBe(literal);
  });

  test.each(["echo 'x", 'echo "x', 'echo $(x', 'echo `x', 'echo ${}'])('%j does not parse', (command) => {
    expect(parseShell(command).parsed).toBe(false);
  });
});

describe('normalizeCommand', () => {
  test.each([
    ['env -i A=1 timeout -s KILL 5 nice -n 3 git -C x --no-pager push', [['git', 'push']]],
    ["sh -c 'ls && git push'", [['ls'], ['git', 'push']]],
    ['sudo -u root /usr/bin/rm -rf /', [['rm', '-rf', '/']]],
    ['xargs -0 -I {} rm {}', [['rm', '{}']]],
    ['command -p exec -a x nohup time -p stdbuf -oL ls', [['ls']]],
    ['find . -exec rm {} + -name x', [['find', '.', '-exec', 'rm', '{}', '+', '-name', 'x'], ['rm', '{}']]],
  ])('%j → %j', (command, expected) => {
    expect(normalized(command)).toEqual(expected);
  });

  test('matchKey splits and sorts short flags', () => {
    const key = (argv: string[]) => matchKey(argv.map((text) => ({ text, literal: true }))).map((w) => w.text);
    expect(key(['rm', '-rf', 'x'])).toEqual(['rm', '-f', '-r', 'x']);
    expect(key(['rm', '-r', '-f', 'x'])).toEqual(['rm', '-f', '-r', 'x']);
    expect(key(['find', '-name', 'x'])).toEqual(['find', '-name', 'x']);
  });
});

describe('canonicalPath', () => {
  test.each([
    ['.env', '.env'],
    ['./.env', '.env'],
    ['sub/../.env', '.env'],
    ['a//b', 'a/b'],
    ['a/b/', 'a/b'],
    ['.', '.'],
    ['./', '.'],
    ['../x', '../x'],
    ['a/../../x', 'a/../../x'],
    ['/etc/passwd', '/etc/passwd'],
  ])('%j → %j', (path, expected) => {
    expect(canonicalPath(path)).toBe(expected);
  });

  test('prefixes keep their trailing slash', () => {
    expect(canonicalPrefix('./src/')).toBe('src/');
    expect(canonicalPrefix('.env')).toBe('.env');
    expect(canonicalPrefix('./')).toBe('');
  });
});

describe('isAutoSafeArgv', () => {
  test.each([
    [['ls', '-la'], true],
    [['git', 'show', 'HEAD:package.json'], true],
    [['git', 'blame', 'a.ts'], true],
    [['git', 'branch', '--contains', 'abc'], true],
    [['git', 'branch', '-d', 'x'], false],
    [['git', 'log', '-c'], false],
    [['git', 'log', '-o', 'x'], false],
    [['git', 'show', '--textconv'], false],
    [['git', 'checkout', 'main'], false],
    [['find', '.', '-delete'], false],
    [['find', '.', '-fprint', 'x'], false],
    [['head', '-n5', 'x'], true],
    [['date', '-s', 'now'], false],
    [['file', '-C'], false],
    [['python3', '--version'], true],
    [['python3', 'x.py'], false],
    [['make', 'test'], false],
  ])('%j → %s', (argv, expected) => {
    expect(isAutoSafeArgv(argv)).toBe(expected);
  });
});
