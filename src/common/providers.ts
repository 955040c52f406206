/**
 * The model providers a run may name in its input (`provider`). Each has an adapter of its own
 * under src/activities/model/providers/ and its endpoint in `<NAME>_BASE_URL`/`<NAME>_API_KEY`.
 */
export const PROVIDER_NAMES = ['openai', 'anthropic'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];
