import { runCommand } from './commands';
import { createCallModel } from './model/call-model';
import type { ProviderConfig } from './model/model-request';
import { withSecretsRedacted } from './model/redact-secrets';
import { toolActivities } from './tools';

export interface ActivityConfig {
  provider: ProviderConfig;
}

/** Every activity the worker registers. Workflows import this module's types only. */
export function createActivities(config: ActivityConfig) {
  return {
    callModel: withSecretsRedacted(createCallModel(config.provider), [config.provider.apiKey]),
    runCommand,
    ...toolActivities,
  };
}

export type Activities = ReturnType<typeof createActivities>;
export type ToolActivityName = keyof typeof toolActivities;
