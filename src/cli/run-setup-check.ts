import { stat } from 'node:fs/promises';
import type { ProviderConfig } from '../connection/provider-config';
import { probeModelEndpoint } from '../doctor/model-endpoint';
import { UsageError } from '../runs/usage-error';

/**
 * What `bareagent run` can find wrong before a durable run exists (a run that fails later stays
 * in `list` and the Web UI for good): the workspace, and when the worker runs in this process,
 * the model settings that worker will use. Each problem is a UsageError of one or two lines that
 * names the path, URL or variable and the fix.
 */
export async function checkWorkspace(workspace: string): Promise<void> {
  const found = await stat(workspace).catch((err: NodeJS.ErrnoException) => err);
  if (found instanceof Error) {
    const why = found.code === 'ENOENT' ? 'does not exist' : `cannot be read (${found.code ?? found.message})`;
    throw new UsageError(`Workspace ${workspace} ${why}.\n  Create it, or pass another directory with --workspace (default: the current directory).`);
  }
  if (!found.isDirectory()) throw new UsageError(`Workspace ${workspace} is not a directory.\n  Pass a directory with --workspace.`);
}

/** The model settings of a worker in this process: a model named, a key where needed, the endpoint answering. */
export async function checkModelSettings(model: string | undefined, provider: ProviderConfig): Promise<void> {
  if (!model && !provider.defaultModel) throw new UsageError('No model named.\n  Pass --model <name>, or set BAREAGENT_MODEL.');
  if (!provider.baseURL && !provider.apiKey) {
    throw new UsageError('OPENAI_API_KEY is not set, and the endpoint it would go to (https://api.openai.com/v1, OPENAI_BASE_URL unset) needs one.\n  Set OPENAI_API_KEY, or OPENAI_BASE_URL to your OpenAI-compatible server.');
  }
  const probe = await probeModelEndpoint(provider);
  if (!probe.ok) throw new UsageError(`${probe.problem}\n  ${probe.fix}`);
}
