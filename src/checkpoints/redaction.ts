import { createRedactor, type Redactor } from '../secrets/redact';
import { secretsFromEnv } from '../secrets/worker-secrets';

/** What `bareagent diff` prints passes the same redactor as every tool result: the secrets of this environment. */
export function diffRedactor(env: NodeJS.ProcessEnv = process.env): Redactor {
  return createRedactor(secretsFromEnv(env));
}
