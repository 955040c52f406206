import type { SandboxNetwork } from '../common/sandbox';
import { describeNetwork } from '../common/sandbox';
import { NETWORK_LEVELS, type NetworkLevel } from './sandbox-config';

export function networkLevel(network: SandboxNetwork): NetworkLevel {
  return typeof network === 'string' ? network : 'hosts';
}

/** The operator's cap (BAREAGENT_SANDBOX_MAX_NETWORK): a run asking for more gets an error that says where the cap is set. */
export function networkCapError(network: SandboxNetwork, max: NetworkLevel): string | undefined {
  const asked = networkLevel(network);
  if (NETWORK_LEVELS.indexOf(asked) <= NETWORK_LEVELS.indexOf(max)) return undefined;
  return (
    `the run asks for network "${describeNetwork(network)}" but this worker allows at most "${max}" ` +
    `(BAREAGENT_SANDBOX_MAX_NETWORK=${max}; the operator can raise it to ${asked === 'full' ? '"full"' : '"hosts" or "full"'})`
  );
}
