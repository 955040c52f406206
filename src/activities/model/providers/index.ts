import { PROVIDER_NAMES, type ProviderName } from '../../../common/providers';
import { endpointOf, type ProviderConfig } from '../../../connection/provider-config';
import type { ModelProvider, ProviderAdapter } from '../provider';

const loaded = new Map<ProviderName, ProviderAdapter>();

/**
 * A provider's adapter, from the folder named after it (its `index.ts` exports `adapter`): its
 * entry in `PROVIDERS` (src/common/providers.ts) is its one registration, and only the providers
 * a process uses load their SDK.
 */
export function adapterOf(name: ProviderName): ProviderAdapter {
  let adapter = loaded.get(name);
  if (!adapter) {
    if (!(PROVIDER_NAMES as readonly string[]).includes(name)) throw new Error(`No provider "${name}": the providers are ${PROVIDER_NAMES.join(', ')}`);
    // Loaded on use, like the CLI's modules (src/cli/load-on-use.ts); the name passed the check above.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    adapter = (require(`./${name}`) as { adapter?: ProviderAdapter }).adapter;
    if (adapter?.name !== name) throw new Error(`src/activities/model/providers/${name}/index.ts must export \`adapter\` named "${name}"`);
    loaded.set(name, adapter);
  }
  return adapter;
}

/** One adapter per provider and worker, made when a run first asks for it. */
export class Providers {
  private readonly made = new Map<ProviderName, ModelProvider>();

  constructor(private readonly config: ProviderConfig) {}

  /** The provider a run names, else the worker's default. */
  get(name: ProviderName | undefined): ModelProvider {
    const chosen = name ?? this.config.defaultProvider ?? 'openai';
    let provider = this.made.get(chosen);
    if (!provider) {
      provider = adapterOf(chosen).create(endpointOf(this.config, chosen), this.config.requestTimeoutMs);
      this.made.set(chosen, provider);
    }
    return provider;
  }
}
