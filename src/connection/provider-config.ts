import { PROVIDER_NAMES, type ProviderName } from '../common/providers';

/** Where one provider's API is and the key it takes. */
export interface ProviderEndpoint {
  baseURL?: string;
  apiKey?: string;
}

/**
 * Where the worker's provider settings come from. Both the CLI (which starts a worker of its own)
 * and the activities read them, so they live here rather than in either. `baseURL` and `apiKey`
 * are the OpenAI-compatible endpoint's; `endpoints` holds each other provider's.
 */
export interface ProviderConfig {
  baseURL?: string;
  apiKey?: string;
  defaultModel?: string;
  /** One HTTP request's limit; a hung connection fails after it and is retried. */
  requestTimeoutMs: number;
  /** The endpoints of the providers other than `openai`, by name. */
  endpoints?: Partial<Record<ProviderName, ProviderEndpoint>>;
  /** The provider of runs whose input names none (default `openai`). */
  defaultProvider?: ProviderName;
}

/** `<NAME>_BASE_URL` and `<NAME>_API_KEY` for a provider's name. */
export function endpointVariables(name: ProviderName): { baseURL: string; apiKey: string } {
  const prefix = name.toUpperCase();
  return { baseURL: `${prefix}_BASE_URL`, apiKey: `${prefix}_API_KEY` };
}

/** A provider's endpoint in a config: `openai`'s at the top level, the others' under `endpoints`. */
export function endpointOf(config: ProviderConfig, name: ProviderName): ProviderEndpoint {
  if (name === 'openai') return { ...(config.baseURL ? { baseURL: config.baseURL } : {}), ...(config.apiKey ? { apiKey: config.apiKey } : {}) };
  return config.endpoints?.[name] ?? {};
}

/**
 * The provider a run whose input names none gets: `BAREAGENT_PROVIDER`, else the only provider
 * whose variables are set (Anthropic's alone: `anthropic`), else `openai`.
 */
export function providerConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ProviderConfig {
  const endpoints: Partial<Record<ProviderName, ProviderEndpoint>> = {};
  const configured: ProviderName[] = [];
  for (const name of PROVIDER_NAMES) {
    const vars = endpointVariables(name);
    const endpoint = { ...(env[vars.baseURL] ? { baseURL: env[vars.baseURL] } : {}), ...(env[vars.apiKey] ? { apiKey: env[vars.apiKey] } : {}) };
    if (Object.keys(endpoint).length > 0) configured.push(name);
    if (name !== 'openai') (endpoints as Record<string, ProviderEndpoint>)[name] = endpoint;
  }
  const chosen = env.BAREAGENT_PROVIDER;
  if (chosen !== undefined && !(PROVIDER_NAMES as readonly string[]).includes(chosen)) {
    throw new Error(`BAREAGENT_PROVIDER=${chosen}: must be one of ${PROVIDER_NAMES.join(', ')}`);
  }
  const defaultProvider = (chosen as ProviderName | undefined) ?? (configured.length === 1 ? configured[0] : undefined);
  return {
    ...(env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {}),
    ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}),
    ...(env.BAREAGENT_MODEL ? { defaultModel: env.BAREAGENT_MODEL } : {}),
    requestTimeoutMs: Number(env.BAREAGENT_MODEL_TIMEOUT_MS || 600_000),
    endpoints,
    ...(defaultProvider ? { defaultProvider } : {}),
  };
}
