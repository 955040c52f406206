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
