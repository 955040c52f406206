import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import { egressPolicyFromEnv, type EgressPolicy } from './egress-policy';
import { EgressRefused, resolveAllowed } from './resolve-allowed';

/** The `fetch` of every connection the worker makes on a run's behalf (MCP `url` servers, webhooks). */
export type EgressFetch = typeof globalThis.fetch;

/**
 * An undici dispatcher whose every new connection (the first request, each redirect, each
 * reconnect) resolves its host, checks the address against the policy and connects to that very
 * address (the TLS name stays the host's).
 */
export function egressDispatcher(policy?: () => EgressPolicy): Agent {
  const connectTo = buildConnector({});
  const connect: buildConnector.connector = (options, callback) => {
    Promise.resolve()
      .then(() => resolveAllowed(options.hostname, policy?.()))
      .then(
      (checked) => connectTo({ ...options, hostname: checked.address }, callback),
      (err: Error) => callback(err, null),
    );
  };
  return new Agent({ connect });
}

/** One pool per policy: a connection opened under a wider policy is never reused under a narrower one. */
const dispatchers = new WeakMap<EgressPolicy, Agent>();

function dispatcherFor(policy: EgressPolicy): Agent {
  let agent = dispatchers.get(policy);
  if (!agent) {
    agent = egressDispatcher(() => policy);
    dispatchers.set(policy, agent);
  }
  return agent;
}

/** `fetch` through the worker's egress policy (as the environment says now); what the MCP SDK and the webhook activity are given. */
export function egressFetch(dispatcher?: Agent): EgressFetch {
  const through = dispatcher ?? dispatcherFor(egressPolicyFromEnv());
  // fetch's own "fetch failed" hides the reason: a refusal is thrown as itself, so the model and the log read why.
  const fetchThrough = (input: Parameters<EgressFetch>[0], init?: Parameters<EgressFetch>[1]) =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher: through }).catch((err: unknown) => {
      const cause = (err as { cause?: unknown }).cause;
      throw cause instanceof EgressRefused ? cause : err;
    });
  return fetchThrough as unknown as EgressFetch;
}
