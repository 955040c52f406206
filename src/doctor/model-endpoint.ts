import type { ProviderConfig } from '../connection/provider-config';

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
const PROBE_TIMEOUT_MS = 5_000;

export type EndpointProbe = { ok: true; detail: string } | { ok: false; problem: string; fix: string };

/**
 * One tiny request to the model endpoint (`GET <base>/models`, nothing generated, nothing billed):
 * does it answer, and does it take the key. Any other answer (a server without /models says 404)
 * still proves the endpoint is there.
 */
export async function probeModelEndpoint(provider: ProviderConfig): Promise<EndpointProbe> {
  const base = (provider.baseURL ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const named = provider.baseURL ? `${base} (OPENAI_BASE_URL)` : `${base} (OPENAI_BASE_URL unset)`;
  let response: Response;
  try {
    response = await fetch(`${base}/models`, {
      headers: provider.apiKey ? { authorization: `Bearer ${provider.apiKey}` } : {},
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const why = (err as Error).name === 'TimeoutError' ? `no answer in ${PROBE_TIMEOUT_MS / 1000} s` : (cause?.code ?? cause?.message ?? (err as Error).message);
    return { ok: false, problem: `Cannot reach the model endpoint ${named}: ${why}.`, fix: 'Start the model server, or set OPENAI_BASE_URL to one that answers.' };
  }
  await response.body?.cancel().catch(() => undefined);
  if (response.status === 401 || response.status === 403) {
    return {
      ok: false,
      problem: `The model endpoint ${named} refused the key (HTTP ${response.status}; OPENAI_API_KEY ${provider.apiKey ? 'is set' : 'is not set'}).`,
      fix: 'Set OPENAI_API_KEY to a key this endpoint accepts.',
    };
  }
  return { ok: true, detail: `${named} answers (HTTP ${response.status})` };
}
