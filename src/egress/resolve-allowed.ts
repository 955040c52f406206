import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { egressPolicyFromEnv, isHostAllowedByOperator, refusedAddress, type EgressPolicy } from './egress-policy';

export class EgressRefused extends Error {
  readonly code = 'EGRESS_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** How a name becomes addresses; a test may put its own in (a name that resolves to loopback without /etc/hosts). */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })) as ResolvedAddress[];

let resolver: Resolver = systemResolver;

/** For tests: how names resolve in this process, until reset with `undefined`. */
export function setEgressResolver(next: Resolver | undefined): void {
  resolver = next ?? systemResolver;
}

/**
 * The address the worker connects to for `host`, checked against the policy after DNS: the caller
 * connects to this address, never to the name again, so a name that changes its answer between
 * the check and the connect (DNS rebinding) gains nothing. The first allowed address wins; none
 * allowed throws `EgressRefused` naming the host and why.
 */
export async function resolveAllowed(host: string, policy: EgressPolicy = egressPolicyFromEnv()): Promise<ResolvedAddress> {
  const name = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const literal = isIP(name);
  const addresses: ResolvedAddress[] = literal ? [{ address: name, family: literal as 4 | 6 }] : await resolver(name);
  if (!literal && isHostAllowedByOperator(policy, name) && addresses[0]) return addresses[0];
  const reasons: string[] = [];
  for (const candidate of addresses) {
    const why = refusedAddress(policy, candidate.address);
    if (!why) return candidate;
    reasons.push(why);
  }
  throw new EgressRefused(
    `the worker does not connect to ${name}${literal ? '' : ` (${reasons.length ? reasons.join('; ') : 'no address'})`}${literal ? `: ${reasons.join('; ')}` : ''}; ` +
      'an operator can allow it with BAREAGENT_WORKER_EGRESS_ALLOW',
  );
}
