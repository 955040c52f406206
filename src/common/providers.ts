/** How `doctor --model` asks a provider for its models (nothing generated, nothing billed). */
export interface ModelListing {
  /** Where the provider's API is when `<NAME>_BASE_URL` is unset. */
  defaultBase: string;
  path: string;
  /** The key, as the provider takes it. */
  headers: (key: string) => Record<string, string>;
}

/**
 * The model providers a run may name in its input (`provider`): adding a provider adds its entry
 * here, and nothing else outside its folder. Each has its adapter in the folder named after it
 * (src/activities/model/providers/<name>/, exporting `adapter`) and its endpoint in
 * `<NAME>_BASE_URL`/`<NAME>_API_KEY`.
 */
export const PROVIDERS = {
  openai: { modelListing: { defaultBase: 'https://api.openai.com/v1', path: '/models', headers: (key) => ({ authorization: `Bearer ${key}` }) } },
  anthropic: { modelListing: { defaultBase: 'https://api.anthropic.com', path: '/v1/models', headers: (key) => ({ 'x-api-key': key, 'anthropic-version': '2023-06-01' }) } },
} as const satisfies Record<string, { modelListing: ModelListing }>;

export type ProviderName = keyof typeof PROVIDERS;
export const PROVIDER_NAMES = Object.keys(PROVIDERS) as [ProviderName, ...ProviderName[]];
