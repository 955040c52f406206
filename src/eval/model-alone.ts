import { lstatSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import type { ProviderConfig } from '../connection/provider-config';
import { MODEL_PROFILES, isProfileName } from '../common/profiles';
import { findMentions } from '../loop/mentions';
import { applyAnswer, fileAnswerRequest, type NamedFile } from '../loop/code-answer';
import type { EvalTask } from './suite';
import { checkTrial, trialWorkspace, type TrialResult, type TrialSettings } from './trial';

/** A named file larger than this is left out of the request (a small model's context is small). */
const MAX_FILE_CHARS = 32_000;


/** The files of the workspace the prompt names (as `small-local` attaches them: plain paths and `@path`), regular files only. */
export function namedFiles(prompt: string, workspace: string): NamedFile[] {
  const files: NamedFile[] = [];
  for (const mention of findMentions(prompt, 'plain')) {
    const full = path.resolve(workspace, mention.path);
    if (!full.startsWith(`${workspace}${path.sep}`)) continue;
    const stat = lstatSync(full, { throwIfNoEntry: false });
    if (!stat?.isFile() || stat.size > MAX_FILE_CHARS) continue;
    files.push({ path: path.relative(workspace, full), text: readFileSync(full, 'utf8') });
  }
  return files;
}

/** Sampling of the baseline's request: the eval's flags, else the profile's, as a trial's run takes them. */
function sampling(settings: TrialSettings): { temperature?: number; max_tokens?: number } {
  const profile: { temperature?: number; maxOutputTokens?: number } = settings.profile !== undefined && isProfileName(settings.profile) ? MODEL_PROFILES[settings.profile].modelSettings : {};
  const temperature = settings.temperature ?? profile.temperature;
  const maxTokens = settings.maxOutputTokens ?? profile.maxOutputTokens;
  return { ...(temperature !== undefined ? { temperature } : {}), ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}) };
}

/**
 * The model alone, the baseline the loop is measured against: one request per trial (no tools, no
 * system prompt), its code blocks applied to the files the prompt names (src/loop/code-answer.ts),
 * then the task's own check, as a loop trial gets.
 */
export async function runModelAlone(provider: ProviderConfig, task: EvalTask, trial: number, settings: TrialSettings): Promise<TrialResult> {
  const workspace = trialWorkspace(task);
  const model = settings.model ?? provider.defaultModel;
  const base: TrialResult = { task: task.name, trial, mode: 'model-alone', workflowId: '', workspace, pass: false, status: 'completed', stopReason: 'answered', iterations: 1, inputTokens: 0, outputTokens: 0, wallMs: 0 };
  if (!model) return { ...base, status: 'error', stopReason: 'eval_error', iterations: 0, error: 'no model: pass --model or set BAREAGENT_MODEL' };
  // The request goes from the eval's own process: a worker elsewhere has its provider, this process may not.
  if (!provider.baseURL && !provider.apiKey) return { ...base, status: 'error', stopReason: 'eval_error', iterations: 0, error: 'no provider for the baseline: set OPENAI_BASE_URL (and OPENAI_API_KEY) where bareagent eval runs' };
  const files = namedFiles(task.prompt, workspace);
  const client = new OpenAI({ baseURL: provider.baseURL, apiKey: provider.apiKey ?? 'none', timeout: provider.requestTimeoutMs, maxRetries: 2 });
  const started = Date.now();
  let reply: string;
  try {
    const response = await client.chat.completions.create({ model, messages: [{ role: 'user', content: fileAnswerRequest(task.prompt, files) }], ...sampling(settings) });
    reply = response.choices[0]?.message.content ?? '';
    base.inputTokens = response.usage?.prompt_tokens ?? 0;
    base.outputTokens = response.usage?.completion_tokens ?? 0;
  } catch (err) {
    return { ...base, wallMs: Date.now() - started, status: 'failed', stopReason: 'model_error', error: err instanceof Error ? err.message : String(err) };
  }
  base.wallMs = Date.now() - started;
  const written = applyAnswer(reply, files);
  for (const [file, text] of written) writeFileSync(path.join(workspace, file), text);
  const result: TrialResult = { ...base, finalAnswer: reply, stopReason: files.length > 0 && written.size === 0 ? 'no_code' : 'answered' };
  return { ...result, ...(await checkTrial(task, workspace, reply)) };
}
