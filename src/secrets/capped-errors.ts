import type { McpCatalog } from '../common/mcp';
import type { ToolOutcome } from '../common/tool-outcome';

/**
 * What the model, the system prompt and the history keep of an error text from a server outside
 * (an MCP server's answer, a provider's error body): 2 KB. A server that answers an error with a
 * page of HTML, or with text written to steer the model, gets this much and no more. Applied
 * after redaction, so that the cut never leaves the head of a secret the redactor would have matched.
 */
export const MAX_ERROR_TEXT = 2048;

export function capErrorText(text: string): string {
  return text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT)}… [error text cut at ${MAX_ERROR_TEXT} characters]` : text;
}

export function capOutcomeError(outcome: ToolOutcome): ToolOutcome {
  return outcome.ok ? outcome : { ...outcome, message: capErrorText(outcome.message) };
}

export function capCatalogErrors(catalog: McpCatalog): McpCatalog {
  return { servers: catalog.servers.map((server) => (server.error === undefined ? server : { ...server, error: capErrorText(server.error) })) };
}

/** An activity whose result is passed through `cap`, and whose thrown error's message is capped. */
export function withCappedErrors<A extends unknown[], R>(fn: (...args: A) => Promise<R>, cap: (result: R) => R = (result) => result): (...args: A) => Promise<R> {
  return async (...args: A): Promise<R> => {
    let result: R;
    try {
      result = await fn(...args);
    } catch (err) {
      if (err instanceof Error) err.message = capErrorText(err.message);
      throw err;
    }
    return cap(result);
  };
}
