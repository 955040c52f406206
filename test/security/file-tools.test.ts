import { spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { toolSchemas, type ToolArgs, type ToolName } from '../../src/common/tool-schemas';
import { editFile } from '../../src/activities/tools/edit-file';
import { glob } from '../../src/activities/tools/glob';
import { grep } from '../../src/activities/tools/grep';
import { readFile } from '../../src/activities/tools/read-file';
import { writeFile } from '../../src/activities/tools/write-file';
import { workspaceRoot } from '../../src/activities/tools/workspace';

/** Each attack is judged by its effect: what lies outside the workspace is unchanged, the worker stays responsive. */
const args = <N extends ToolName>(name: N, input: object): ToolArgs<N> => toolSchemas[name].parse(input) as ToolArgs<N>;

let root: string;
let outside: string;
beforeEach(() => {
  root = workspaceRoot(mkdtempSync(path.join(os.tmpdir(), 'attack-ws-')));
  outside = mkdtempSync(path.join(os.tmpdir(), 'attack-outside-'));
  writeFileSync(path.join(outside, 'target.txt'), 'original\n');
  writeFileSync(path.join(root, 'normal.txt'), 'plain text\n');
});

/** Largest gap between ticks of a 5 ms interval while `run` is pending: how long the event loop was blocked. */
async function eventLoopBlock<T>(run: () => Promise<T>): Promise<{ result: T; maxGapMs: number; ticks: number }> {
  let last = performance.now();
  let maxGapMs = 0;
  let ticks = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
    ticks += 1;
  }, 5);
  try {
    const result = await run();
    maxGapMs = Math.max(maxGapMs, performance.now() - last);
    return { result, maxGapMs, ticks };
  } finally {
    clearInterval(timer);
  }
}

function withinMs<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe('symlinks and hard links', () => {
  test('a dangling symlink inside a symlinked directory does not create a file outside', async () => {
    mkdirSync(path.join(root, 'real'));
    symlinkSync(path.join(root, 'real'), path.join(root, 'd'));
    symlinkSync(path.join(outside, 'new'), path.join(root, 'real', 'x'));
    await expect(writeFile(root, args('write_file', { file_path: 'd/x', content: 'pwned' }))).rejects.toThrow('a symlink leads out');
    await expect(writeFile(root, args('write_file', { file_path: 'real/x', content: 'pwned' }))).rejects.toThrow(
      'a symlink leads out',
    );
    await expect(editFile(root, args('edit_file', { file_path: 'd/x', old_text: 'a', new_text: 'b' }))).rejects.toThrow(
      'outside the workspace',
    );
    expect(readdirSync(outside)).toEqual(['target.txt']);
  });

  test('a relative dangling symlink is resolved against the real directory holding it, not the path used', async () => {
    // ws/a/b/c/d -> ws/real, and ws/real/x -> ../<outside>/new: read from ws/a/b/c/d the link
    // stays inside (ws/a/b/<outside>/new), but the kernel follows it from ws/real, out of the workspace.
    mkdirSync(path.join(root, 'real'));
    mkdirSync(path.join(root, 'a', 'b', 'c'), { recursive: true });
    symlinkSync(path.join(root, 'real'), path.join(root, 'a', 'b', 'c', 'd'));
    symlinkSync(path.relative(path.join(root, 'real'), path.join(outside, 'new')), path.join(root, 'real', 'x'));
    await expect(writeFile(root, args('write_file', { file_path: 'a/b/c/d/x', content: 'pwned' }))).rejects.toThrow(
      'a symlink leads out',
    );
    expect(readdirSync(outside)).toEqual(['target.txt']);
  });

  test('a hard link to a file outside is not written through', async () => {
    linkSync(path.join(outside, 'target.txt'), path.join(root, 'linked.txt'));
    await expect(writeFile(root, args('write_file', { file_path: 'linked.txt', content: 'pwned' }))).rejects.toMatchObject({
      name: 'HardLinkError',
      message: 'linked.txt has more than one hard link; refusing to write through it',
    });
    await expect(
      editFile(root, args('edit_file', { file_path: 'linked.txt', old_text: 'original', new_text: 'pwned' })),
    ).rejects.toThrow('has more than one hard link');
    expect(readFileSync(path.join(outside, 'target.txt'), 'utf8')).toBe('original\n');
    // Reading it changes nothing, and is allowed.
    expect(await readFile(root, args('read_file', { file_path: 'linked.txt' }))).toBe('1: original');
  });

  test('symlinks swapped in and out while the tools run never let a write land outside', async () => {
    mkdirSync(path.join(root, 'inner'));
    writeFileSync(path.join(root, 'file.txt'), 'inside\n');
    symlinkSync(path.join(root, 'inner'), path.join(root, 'sub'));
    // A separate process flips ws/sub between ws/inner and the outside directory, and
    // ws/file.txt between a regular file and a symlink to the outside file, as fast as it can.
    const flipper = startFlipper(root, outside);
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      // At least 300 rounds, and on until one write took the inside path (a loaded machine may
      // start the flipper late or schedule it unevenly), within a bound.
      const deadline = Date.now() + 30_000;
      const landedInside = () => existsSync(path.join(root, 'inner', 'new.txt'));
      for (let i = 0; i < 300 || (!landedInside() && Date.now() < deadline); i++) {
        await writeFile(root, args('write_file', { file_path: 'sub/new.txt', content: `pwned ${i}` })).catch(() => undefined);
        await writeFile(root, args('write_file', { file_path: 'file.txt', content: `pwned ${i}` })).catch(() => undefined);
        await editFile(root, args('edit_file', { file_path: 'file.txt', old_text: 'i', new_text: 'pwned' })).catch(() => undefined);
      }
    } finally {
      flipper.kill('SIGKILL');
    }
    expect(readdirSync(outside)).toEqual(['target.txt']);
    expect(readFileSync(path.join(outside, 'target.txt'), 'utf8')).toBe('original\n');
    // The writes that hit the inside directory did land there.
    expect(existsSync(path.join(root, 'inner', 'new.txt'))).toBe(true);
  }, 60_000);
});

function startFlipper(ws: string, out: string): ChildProcess {
  const script = `
    const fs = require('fs'); const path = require('path');
    const [ws, out] = process.argv.slice(1);
    const tmp = (n) => path.join(ws, '.tmp-' + n);
    for (let i = 0; ; i++) {
      try {
        fs.symlinkSync(i % 2 ? out : path.join(ws, 'inner'), tmp('dir'));
        fs.renameSync(tmp('dir'), path.join(ws, 'sub'));
        if (i % 2) fs.symlinkSync(path.join(out, 'target.txt'), tmp('file'));
        else fs.writeFileSync(tmp('file'), 'inside\\n');
        fs.renameSync(tmp('file'), path.join(ws, 'file.txt'));
      } catch {}
    }`;
  return spawn(process.execPath, ['-e', script, ws, out], { stdio: 'ignore' });
}

describe('special files', () => {
  beforeEach(() => {
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
  });

  test('read_file on a FIFO is a quick, clear error', async () => {
    await expect(withinMs(2000, readFile(root, args('read_file', { file_path: 'pipe' })))).rejects.toMatchObject({
      name: 'NotARegularFileError',
      message: expect.stringContaining('Not a regular file: pipe is a FIFO'),
    });
  });

  test('four FIFO reads at once do not block a following normal read (libuv threadpool)', async () => {
    const fifoReads = [1, 2, 3, 4].map(() => readFile(root, args('read_file', { file_path: 'pipe' })).catch((err: Error) => err.name));
    expect(await withinMs(2000, readFile(root, args('read_file', { file_path: 'normal.txt' })))).toBe('1: plain text');
    expect(await withinMs(2000, Promise.all(fifoReads))).toEqual(Array(4).fill('NotARegularFileError'));
  });

  test('writes, edits and greps do not hang on a FIFO either', async () => {
    await expect(withinMs(2000, writeFile(root, args('write_file', { file_path: 'pipe', content: 'x' })))).rejects.toThrow(
      'Not a regular file',
    );
    await expect(
      withinMs(2000, editFile(root, args('edit_file', { file_path: 'pipe', old_text: 'a', new_text: 'b' }))),
    ).rejects.toThrow('Not a regular file');
    await expect(withinMs(2000, grep(root, args('grep', { pattern: 'x', path: 'pipe' })))).rejects.toThrow('Not a regular file');
    expect(await withinMs(2000, grep(root, args('grep', { pattern: 'plain' })))).toBe(
      'normal.txt:1: plain text\n[skipped 1 FIFO, socket or device file (never opened): "pipe"]',
    );
  });

  test('a unix socket is refused as well', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(root, 'sock'), resolve));
    try {
      await expect(withinMs(2000, readFile(root, args('read_file', { file_path: 'sock' })))).rejects.toThrow(
        'Not a regular file: sock is a socket',
      );
      await expect(withinMs(2000, writeFile(root, args('write_file', { file_path: 'sock', content: 'x' })))).rejects.toThrow(
        'Not a regular file',
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('catastrophic patterns', () => {
  test('a catastrophic regex in grep returns quickly and the event loop keeps ticking', async () => {
    // `(a+)+$` backtracks exponentially in a JS RegExp: 28 a's blocked the loop for ~4 s.
    writeFileSync(path.join(root, 'evil.txt'), `${'a'.repeat(100_000)}b\n`.repeat(5));
    const { result, maxGapMs } = await eventLoopBlock(() => withinMs(5000, grep(root, args('grep', { pattern: '(a+)+$' }))));
    expect(result).toBe('No matches found for "(a+)+$" in the workspace.');
    expect(maxGapMs).toBeLessThan(1000);
  });

  test('grep yields to the event loop while it scans many files', async () => {
    mkdirSync(path.join(root, 'many'));
    for (let i = 0; i < 200; i++) writeFileSync(path.join(root, 'many', `f${i}.txt`), 'some text\n'.repeat(5000));
    const { result, ticks, maxGapMs } = await eventLoopBlock(() => grep(root, args('grep', { pattern: 'nowhere' })));
    expect(result).toBe('No matches found for "nowhere" in the workspace.');
    expect(ticks).toBeGreaterThan(0);
    expect(maxGapMs).toBeLessThan(1000);
  });

  test('patterns that need backtracking get a clear RE2 error', async () => {
    await expect(grep(root, args('grep', { pattern: '(a)\\1' }))).rejects.toThrow('the grep tool uses RE2 syntax');
    await expect(grep(root, args('grep', { pattern: 'foo(?=bar)' }))).rejects.toThrow('lookaround are not supported');
  });

  test.each([
    ['{a,b}'.repeat(30), 'alternatives'],
    ['{1..100000}', 'brace range of 100000 items'],
    ['{1..1000}{1..1000}', 'expands to 1000000 alternatives'],
    [`${'{'.repeat(50_000)}a${'}'.repeat(50_000)}`, 'Pattern is too long'],
  ])('glob refuses the brace bomb %#, at once', async (pattern, message) => {
    const { maxGapMs } = await eventLoopBlock(() =>
      withinMs(5000, glob(root, args('glob', { pattern }))).then(
        () => {
          throw new Error('accepted');
        },
        (err: Error) => expect(err.message).toContain(message),
      ),
    );
    expect(maxGapMs).toBeLessThan(1000);
  });

  test('grep refuses a brace bomb in include too', async () => {
    await expect(withinMs(5000, grep(root, args('grep', { pattern: 'x', include: '{a,b}'.repeat(30) })))).rejects.toThrow(
      'alternatives',
    );
  });
});
