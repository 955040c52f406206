/**
 * Where the worker's provider settings come from. Both the CLI (which starts a worker of its own)
 * and the activities read them, so they live here rather than in either.
 */
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
