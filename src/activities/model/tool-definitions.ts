import type OpenAI from 'openai';
import { z } from 'zod';
import { isToolName, toolDescriptions, toolSchemas } from '../../common/tool-schemas';

/** JSON schemas for the model, generated from the same zod schemas the workflow checks with. */
export function toolDefinitions(names: readonly string[]): OpenAI.Chat.Completions.ChatCompletionTool[] {
  return names.filter(isToolName).map((name) => {
    const { $schema: _ignored, ...parameters } = z.toJSONSchema(toolSchemas[name], { io: 'input' }) as Record<
      string,
      unknown
    >;
    return { type: 'function', function: { name, description: toolDescriptions[name], parameters } };
  });
}

/** MCP tools as their servers describe them; a schema that is not an object schema becomes one that takes any object. */
export function mcpToolDefinitions(
  tools: ReadonlyArray<{ name: string; description: string; inputSchema: Record<string, unknown> }>,
): OpenAI.Chat.Completions.ChatCompletionTool[] {
  return tools.map(({ name, description, inputSchema }) => {
    const { $schema: _ignored, ...schema } = inputSchema;
    const parameters = schema.type === 'object' ? schema : { type: 'object', properties: {} };
    return { type: 'function', function: { name, description, parameters } };
  });
}
