import type { ProviderName } from '../../../common/providers';
import { endpointOf, type ProviderConfig } from '../../../connection/provider-config';
import type { ModelProvider } from '../provider';
import { createAnthropicProvider } from './anthropic';
import { createOpenAIProvider } from './openai';

/** Every adapter, by the name a run's input gives (`provider`). Adding a provider adds its line here. */
const ADAPTERS: Record<ProviderName, (endpoint: ReturnType<typeof endpointOf>, requestTimeoutMs: number) => ModelProvider> = {
  openai: createOpenAIProvider,
  anthropic: createAnthropicProvider,
};

/** One adapter per provider and worker, made when a run first asks for it. */
export class Providers {
  private readonly made = new Map<ProviderName, ModelProvider>();

  constructor(private readonly config: ProviderConfig) {}

  /** The provider a run names, else the worker's default. */
  get(name: ProviderName | undefined): ModelProvider {
    const chosen = name ?? this.config.defaultProvider ?? 'openai';
    let provider = this.made.get(chosen);
    if (!provider) {
      provider = ADAPTERS[chosen](endpointOf(this.config, chosen), this.config.requestTimeoutMs);
      this.made.set(chosen, provider);
    }
    return provider;
  }
}
