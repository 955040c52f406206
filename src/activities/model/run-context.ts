import type { Message } from '../../common/messages';

/**
 * The conversation as sent: the run's context at the head of its first user message. Applied to
 * what is sent, never to the recorded conversation (nor to the worker's transcript cache).
 */
export function withRunContext(messages: Message[], context: string | undefined): Message[] {
  if (!context) return messages;
  const at = messages.findIndex((message) => message.role === 'user');
  const first = messages[at];
  if (!first) return [{ role: 'user', content: context }, ...messages];
  const replaced = (message: Message) => [...messages.slice(0, at), message, ...messages.slice(at + 1)];
  if (typeof first.content === 'string') return replaced({ ...first, content: `${context}\n\n${first.content}` });
  // A message of tool results stays whole: the context goes in a message of its own before it.
  if (first.content.some((block) => block.type === 'tool_result')) return [...messages.slice(0, at), { role: 'user', content: context }, ...messages.slice(at)];
  return replaced({ ...first, content: [{ type: 'text', text: context }, ...first.content] });
}
