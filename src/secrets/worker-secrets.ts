/** Always secret when set, whatever their length. */
const KNOWN_SECRETS = ['OPENAI_API_KEY', 'BAREAGENT_ENCRYPTION_KEY', 'TEMPORAL_API_KEY'];
/** Any other variable whose name says it holds a credential. */
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)/i;
/** Shorter values would redact ordinary words (`KEYBOARD=us`); real credentials are longer. */
export const MIN_SECRET_LENGTH = 8;

/**
 * The values of the worker's environment that must never reach a run's history. Read once, when
 * the activities are created: a variable set later is not the worker's configuration.
 */
export function secretsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const values = Object.entries(env)
    .filter(([name]) => KNOWN_SECRETS.includes(name) || SECRET_NAME.test(name))
    .map(([, value]) => value?.trim() ?? '')
    .filter((value) => value.length >= MIN_SECRET_LENGTH);
  return [...new Set(values)];
}
