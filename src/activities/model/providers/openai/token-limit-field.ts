import { APIError } from 'openai';


/**
 * `max_tokens` or `max_completion_tokens`: OpenAI's reasoning models refuse the first with a 400
 * that names the second, most other servers know only the first. The first refusal is retried
 * once with the other name, and the worker remembers the model, so its later calls send that
 * name at once.
 */
export class TokenLimitField {
  // Generic over the request type: only `max_tokens` is looked at and renamed.
  private readonly renamed = new Set<string>();

  forModel<B extends object>(model: string, body: B): B {
    return this.renamed.has(model) ? rename(body) ?? body : body;
  }

  /** The request to send again, or undefined when the error is not that refusal. */
  afterRefusal<B extends object>(model: string, body: B, err: unknown): B | undefined {
    if (!(err instanceof APIError) || err.status !== 400 || !('max_tokens' in body)) return undefined;
    if (!/max_tokens/.test(err.message) || !/max_completion_tokens/.test(err.message)) return undefined;
    this.renamed.add(model);
    return rename(body);
  }
}

function rename<B extends object>(body: B): B | undefined {
  if (!('max_tokens' in body)) return undefined;
  const { max_tokens: limit, ...rest } = body as B & { max_tokens: unknown };
  return { ...rest, max_completion_tokens: limit } as unknown as B;
}
