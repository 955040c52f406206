import type { Message } from '../../common/messages';

/** The input of the `callModel` activity. Keys never travel here: they stay in the worker's env. */
export interface ModelRequest {
  model?: string;
  systemPrompt?: string;
  messages: Message[];
  tools: string[];
  stream: boolean;
  step: number;
}

export interface ProviderConfig {
  baseURL?: string;
  apiKey?: string;
  defaultModel?: string;
  /** One HTTP request's limit; a hung connection fails after it and is retried. */
  requestTimeoutMs: number;
}

export function providerConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ProviderConfig {
  return {
    ...(env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {}),
    ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}),
    ...(env.BAREAGENT_MODEL ? { defaultModel: env.BAREAGENT_MODEL } : {}),
    requestTimeoutMs: Number(env.BAREAGENT_MODEL_TIMEOUT_MS || 600_000),
  };
}
