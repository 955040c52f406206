import { loadClientConfigProfile, type ClientConfigProfile } from '@temporalio/envconfig';

/**
 * The connection profile as the `temporal` CLI reads it: the TOML file (TEMPORAL_CONFIG_FILE, else
 * ~/.config/temporalio/temporal.toml), its profile TEMPORAL_PROFILE (default `default`), and the
 * TEMPORAL_* variables over it (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS*).
 */
export function temporalProfile(env: NodeJS.ProcessEnv = process.env): ClientConfigProfile {
  // An empty variable counts as unset, as it always did here (the library would take '' as the address).
  const vars = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => !!entry[1]));
  try {
    return loadClientConfigProfile({ overrideEnvVars: vars });
  } catch (err) {
    const file = vars.TEMPORAL_CONFIG_FILE ?? '~/.config/temporalio/temporal.toml';
    throw new Error(`Cannot read the Temporal connection profile (${file}): ${(err as Error).message}`);
  }
}
