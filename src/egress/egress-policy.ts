import ipaddr from 'ipaddr.js';

/** The operator's widening of the worker's egress policy: `BAREAGENT_WORKER_EGRESS_ALLOW`. */
export const EGRESS_ALLOW_ENV = 'BAREAGENT_WORKER_EGRESS_ALLOW';

export interface EgressPolicy {
  /** Address ranges the operator allows although they are not public unicast. */
  ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
  /** Host names (exact, or `*.suffix`) whose addresses are not checked: the operator named them. */
  hosts: string[];
}

/**
 * Reads `BAREAGENT_WORKER_EGRESS_ALLOW`: comma-separated CIDRs (`127.0.0.1/32`, `10.0.0.0/8`,
 * `fd00::/8`), bare addresses (a /32 or /128) and host names (`mcp.internal`, `*.corp.example`).
 * A bad entry throws naming it: an operator's typo must not silently allow or refuse.
 */
export function parseEgressAllow(text: string | undefined): EgressPolicy {
  const policy: EgressPolicy = { ranges: [], hosts: [] };
  for (const raw of (text ?? '').split(',')) {
    const entry = raw.trim();
    if (!entry) continue;
    if (entry.includes('/')) {
      try {
        policy.ranges.push(ipaddr.parseCIDR(entry));
      } catch {
        throw new Error(`${EGRESS_ALLOW_ENV}: "${entry}" is not a CIDR range`);
      }
    } else if (ipaddr.isValid(bare(entry))) {
      const address = ipaddr.parse(bare(entry));
      policy.ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else if (/^(\*\.)?[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?$/i.test(entry)) {
      policy.hosts.push(normalHost(entry));
    } else {
      throw new Error(`${EGRESS_ALLOW_ENV}: "${entry}" is neither a CIDR range, an address nor a host name`);
    }
  }
  return policy;
}

let cached: { text: string | undefined; policy: EgressPolicy } | undefined;

/** The policy of the worker's environment, read again when the variable changes (tests set it per file). */
export function egressPolicyFromEnv(env: NodeJS.ProcessEnv = process.env): EgressPolicy {
  const text = env[EGRESS_ALLOW_ENV];
  if (cached && cached.text === text) return cached.policy;
  const policy = parseEgressAllow(text);
  cached = { text, policy };
  return policy;
}

/** True when the operator named this host, so its addresses are not checked. */
export function isHostAllowedByOperator(policy: EgressPolicy, host: string): boolean {
  const name = normalHost(host);
  return policy.hosts.some((allowed) => (allowed.startsWith('*.') ? name.endsWith(allowed.slice(1)) : name === allowed));
}

/**
 * Why the worker may not connect to this address, or undefined when it may: only public unicast
 * addresses pass (loopback, link-local with the cloud metadata service, private, unique-local,
 * CGNAT, multicast, reserved and the v6 forms that embed a v4 address all fail), unless the
 * operator's ranges hold the address. An IPv4-mapped v6 address is judged as its v4 address.
 */
export function refusedAddress(policy: EgressPolicy, address: string): string | undefined {
  const text = bare(address);
  if (!ipaddr.isValid(text)) return `"${address}" is not an IP address`;
  let parsed = ipaddr.parse(text);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  if (policy.ranges.some(([net, bits]) => net.kind() === parsed.kind() && parsed.match(net, bits))) return undefined;
  return `${parsed.toString()} is a ${describeRange(range)} address`;
}

function describeRange(range: string): string {
  const names: Record<string, string> = {
    loopback: 'loopback',
    linkLocal: 'link-local',
    private: 'private',
    uniqueLocal: 'unique-local',
    carrierGradeNat: 'carrier-grade NAT',
    multicast: 'multicast',
    unspecified: 'unspecified',
    broadcast: 'broadcast',
  };
  return names[range] ?? `non-public (${range})`;
}

function bare(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function normalHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}
