/**
 * The worker's secrets stay out of the history: a provider (or a proxy in front of it) that puts
 * the key it received into an error message (`Incorrect API key provided: Bearer sk-...`) would
 * otherwise have it recorded in the failed activity, its stack trace and the run's failure.
 */
export function withSecretsRedacted<A extends unknown[], R>(
  fn: (...args: A) => Promise<R>,
  secrets: Array<string | undefined>,
): (...args: A) => Promise<R> {
  // Short values would redact ordinary words; real keys are long.
  const words = secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length >= 8);
  if (words.length === 0) return fn;
  return async (...args: A): Promise<R> => {
    try {
      return await fn(...args);
    } catch (err) {
      throw redactError(err, words);
    }
  };
}

export function redactText(text: string, words: string[]): string {
  return words.reduce((out, word) => out.split(word).join('[redacted]'), text);
}

function redactError(err: unknown, words: string[], depth = 0): unknown {
  if (!(err instanceof Error) || depth > 5) return err;
  err.message = redactText(err.message, words);
  if (err.stack) err.stack = redactText(err.stack, words);
  if (err.cause !== undefined) redactError(err.cause, words, depth + 1);
  return err;
}
