/** Hosts whose traffic never leaves the machine. */
function isLoopback(address: string): boolean {
  const host = address.startsWith('[') ? address.slice(1, address.indexOf(']')) : address.replace(/:\d+$/, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** A warning when workflow data and credentials would cross a network in the clear; undefined otherwise. */
export function plaintextWarning(address: string, options: { tls?: unknown; apiKey?: unknown }): string | undefined {
  if (isLoopback(address) || options.tls || options.apiKey) return undefined;
  return (
    `Warning: connecting to Temporal at ${address} without TLS or an API key: run inputs, messages and ` +
    `tool results travel unencrypted. Set TEMPORAL_TLS=true (or a TLS profile, or TEMPORAL_API_KEY) unless this network is trusted.`
  );
}
