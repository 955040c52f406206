/**
 * Whether a message's content, as a model server received it, is this prompt: the first user
 * message of a run with the default system prompt is its run context (workspace, listing) and then
 * the prompt.
 */
export function isPromptSent(content: unknown, prompt: string): boolean {
  return typeof content === 'string' && withoutRunContext(content) === prompt;
}

/** A first user message as sent, without the run context in front of it: the prompt as given. */
export function withoutRunContext(content: string): string {
  if (!content.startsWith('# Environment\n')) return content;
  const listing = content.indexOf('\n# Workspace at run start\n');
  const end = listing < 0 ? -1 : content.indexOf('\n\n', listing + 1);
  return end < 0 ? content : content.slice(end + 2);
}
