import { capOutput } from '../tools/limits';

interface ContentBlock {
  type: string;
  text?: string;
  mimeType?: string;
  data?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; text?: string; mimeType?: string };
}

/** What the model reads of a tool result: the text blocks as they are, other blocks as a one-line note. */
export function resultText(result: { content?: unknown; structuredContent?: unknown; toolResult?: unknown }): string {
  const blocks = Array.isArray(result.content) ? (result.content as ContentBlock[]) : [];
  const parts = blocks.map(describeBlock);
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  if (parts.length === 0 && result.toolResult !== undefined) parts.push(JSON.stringify(result.toolResult));
  return capOutput(parts.join('\n'));
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text ?? '';
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType ?? 'unknown type'}, ${Math.floor(((block.data?.length ?? 0) * 3) / 4)} bytes]`;
    case 'resource':
      return block.resource?.text ?? `[resource: ${block.resource?.uri ?? ''}]`;
    case 'resource_link':
      return `[resource link: ${block.name ?? ''} ${block.uri ?? ''}]`;
    default:
      return `[${block.type} content]`;
  }
}
