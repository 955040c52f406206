/**
 * `npm run bench -- --only peers`: the same durable agent task on BareAgent and its peers, in
 * bench/peers (a package of its own: `npm ci` there first). It runs in a process of its own,
 * with bench/peers' dependencies, and returns its markdown block.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchContext } from './context';
import type { Block } from './report';

const PEERS_DIR = path.join(__dirname, 'peers');

export async function peers(ctx: BenchContext): Promise<Block> {
  if (!existsSync(path.join(PEERS_DIR, 'node_modules'))) {
    throw new Error(`bench/peers has its own dependencies: run \`npm ci\` in ${PEERS_DIR} first`);
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bareagent-bench-peers-'));
  const out = path.join(dir, 'peers.md');
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(PEERS_DIR, 'run.ts'), '--out', out, ...(process.env.BENCH_PEERS_ARGS?.split(' ').filter(Boolean) ?? [])], {
      cwd: PEERS_DIR,
      env: { ...process.env, PEERS_COMMAND: ctx.command },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`bench/peers/run.ts exited ${code}`);
    // The figures behind the table (every turn, the kill test's requests per turn) outlive the run.
    const figures = path.join(os.tmpdir(), 'bareagent-bench-peers.json');
    copyFileSync(out.replace(/\.md$/, '.json'), figures);
    ctx.log(`peers: the figures behind the table are in ${figures}`);
    return { id: 'peers', markdown: readFileSync(out, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
