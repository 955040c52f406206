import { z } from 'zod';
import type { Message } from '../common/messages';
import { userTool } from '../common/tool-descriptors';
import { isToolName, toolDescriptions, toolSchemas } from '../common/tool-schemas';
import { contextTokens, estimateTextTokens, type TokenAnchor } from './token-count';

/** Built once per tool: the same JSON schema the provider is sent (src/activities/model/tool-definitions.ts). */
const toolTokens = new Map<string, number>();

function toolDefinitionTokens(name: string): number {
  const own = isToolName(name) ? undefined : userTool(name);
  if (!isToolName(name) && !own) return 0;
  let tokens = toolTokens.get(name);
  if (tokens === undefined) {
    const parameters = isToolName(name) ? z.toJSONSchema(toolSchemas[name], { io: 'input' }) : own?.parameters;
    tokens = estimateTextTokens(JSON.stringify({ name, description: isToolName(name) ? toolDescriptions[name] : own?.description, parameters }));
    toolTokens.set(name, tokens);
  }
  return tokens;
}

export interface PromptParts {
  messages: readonly Message[];
  systemPrompt: string;
  tools: readonly string[];
  mcpTools: readonly unknown[];
  /** The provider's count of the last call's prompt, while the history is the one it counted. */
  anchor?: TokenAnchor | undefined;
}

/**
 * What a model call will send, in tokens: the provider's count of the last call's prompt (system
 * prompt and tools included) plus an estimate of the messages added since; without a count, the
 * estimate of everything (messages, system prompt, tool schemas).
 */
export function estimatePromptTokens({ messages, systemPrompt, tools, mcpTools, anchor }: PromptParts): number {
  if (anchor && anchor.inputTokens > 0 && anchor.sentCount <= messages.length) return contextTokens(messages, anchor);
  const toolsTokens = tools.reduce((n, name) => n + toolDefinitionTokens(name), 0) + (mcpTools.length ? estimateTextTokens(JSON.stringify(mcpTools)) : 0);
  return contextTokens(messages, undefined) + estimateTextTokens(systemPrompt) + toolsTokens;
}
