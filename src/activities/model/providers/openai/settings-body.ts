import type { ModelSettings } from '../../../../common/input';

/** The run's model settings as Chat Completions request fields; `extraBody` last, as given. */
export function settingsBody(settings: ModelSettings | undefined): Record<string, unknown> {
  if (!settings) return {};
  return {
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
    ...(settings.maxOutputTokens !== undefined ? { max_tokens: settings.maxOutputTokens } : {}),
    ...(settings.reasoningEffort !== undefined ? { reasoning_effort: settings.reasoningEffort } : {}),
    ...settings.extraBody,
  };
}
