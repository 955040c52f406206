import type { ContentBlock, Message } from '../common/messages';

/** Per block, in the transcript sent to the summariser: its request stays bounded too. */
export const SUMMARY_BLOCK_CHARS = 2000;

export const SUMMARY_INSTRUCTIONS = [
  'You are compacting the history of an agent run so that it can go on with less context.',
  'Write a concise summary of the transcript below. Preserve:',
  '- the goals and requirements the user stated;',
  '- decisions taken, and why;',
  '- files read, created or changed (with their paths), and what changed;',
  '- commands run and the results that matter;',
  '- errors, open problems and what remains to be done.',
  'If the transcript begins with an earlier summary, fold it in. Leave out chatter and tool',
  'output that no longer matters. Plain text, no preamble.',
].join('\n');

/** The prompt of the summarising model call: one user message, the older turns as text. */
export function summaryRequestMessages(older: readonly Message[]): Message[] {
  return [{ role: 'user', content: `${SUMMARY_INSTRUCTIONS}\n\n<transcript>\n${renderTranscript(older)}\n</transcript>` }];
}

/** `[assistant]`, `→ tool(input)`, `← tool: result` lines; long blocks clipped. */
export function renderTranscript(messages: readonly Message[]): string {
  const names = new Map<string, string>();
  const render = (block: ContentBlock): string => {
    if (block.type === 'text') return block.text;
    if (block.type === 'tool_use') {
      names.set(block.id, block.name);
      return `→ ${block.name}(${clip(typeof block.input === 'string' ? block.input : (JSON.stringify(block.input) ?? ''))})`;
    }
    const name = names.get(block.tool_use_id) ?? 'unknown';
    return `← ${name}${block.is_error ? ' (error)' : ''}: ${clip(block.content)}`;
  };
  return messages
    .map((message) => {
      const body = typeof message.content === 'string' ? message.content : message.content.map(render).join('\n');
      return `[${message.role}]\n${body}`;
    })
    .join('\n\n');
}

function clip(text: string): string {
  if (text.length <= SUMMARY_BLOCK_CHARS) return text;
  return `${text.slice(0, SUMMARY_BLOCK_CHARS)}… [${text.length - SUMMARY_BLOCK_CHARS} more chars]`;
}
