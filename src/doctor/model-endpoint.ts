import { PROVIDERS } from '../common/providers';
import { endpointOf, endpointVariables, type ProviderConfig } from '../connection/provider-config';

const PROBE_TIMEOUT_MS = 5_000;

export type EndpointProbe = { ok: true; detail: string } | { ok: false; problem: string; fix: string };

/**
 * One tiny request to the worker's default provider (its models listing: nothing generated,
 * nothing billed), with the key as that provider takes it: does it answer, and does it take the
 * key. Any other answer (a server without the listing says 404) still proves the endpoint is there.
 */
export async function probeModelEndpoint(config: ProviderConfig): Promise<EndpointProbe> {
  const provider = config.defaultProvider ?? 'openai';
  const probe = PROVIDERS[provider].modelListing;
  const vars = endpointVariables(provider);
  const endpoint = endpointOf(config, provider);
  const base = (endpoint.baseURL ?? probe.defaultBase).replace(/\/+$/, '');
  const named = `${base} (${vars.baseURL}${endpoint.baseURL ? '' : ' unset'})`;
  let response: Response;
  try {
    response = await fetch(`${base}${probe.path}`, {
      headers: endpoint.apiKey ? probe.headers(endpoint.apiKey) : {},
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const why = (err as Error).name === 'TimeoutError' ? `no answer in ${PROBE_TIMEOUT_MS / 1000} s` : (cause?.code ?? cause?.message ?? (err as Error).message);
    return { ok: false, problem: `Cannot reach the model endpoint ${named}: ${why}.`, fix: `Start the model server, or set ${vars.baseURL} to one that answers.` };
  }
  await response.body?.cancel().catch(() => undefined);
  if (response.status === 401 || response.status === 403) {
    return {
      ok: false,
      problem: `The model endpoint ${named} refused the key (HTTP ${response.status}; ${vars.apiKey} ${endpoint.apiKey ? 'is set' : 'is not set'}).`,
      fix: `Set ${vars.apiKey} to a key this endpoint accepts.`,
    };
  }
  return { ok: true, detail: `${named} answers (HTTP ${response.status})` };
}
