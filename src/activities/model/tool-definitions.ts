import { z } from 'zod';
import type { UserToolDescriptor } from '../../common/tool-descriptors';
import { isToolName, toolDescriptions, toolSchemas, type ToolName } from '../../common/tool-schemas';
import type { ToolSpec } from './provider';

/** Built once per tool and worker: converting the zod schemas on every model call cost 0.3-1.3 ms of CPU. */
const definitions = new Map<ToolName, ToolSpec>();

/**
 * JSON schemas for the model, generated from the same zod schemas the workflow checks with; the
 * worker's own tools (`defineTool`) from the descriptors its workflow bundle holds.
 */
export function toolDefinitions(names: readonly string[], userTools: ReadonlyMap<string, UserToolDescriptor> = new Map()): ToolSpec[] {
  const builtIn = names.filter(isToolName).map((name) => {
    let definition = definitions.get(name);
    if (!definition) {
      const { $schema: _ignored, ...parameters } = z.toJSONSchema(toolSchemas[name], { io: 'input' }) as Record<string, unknown>;
      definition = { name, description: toolDescriptions[name], parameters };
      definitions.set(name, definition);
    }
    return definition;
  });
  const own = names.flatMap((name) => {
    const tool = userTools.get(name);
    return tool ? [{ name, description: tool.description, parameters: tool.parameters }] : [];
  });
  return own.length > 0 ? [...builtIn, ...own] : builtIn;
}

/** MCP tools as their servers describe them; a schema that is not an object schema becomes one that takes any object. */
export function mcpToolDefinitions(tools: ReadonlyArray<{ name: string; description: string; inputSchema: Record<string, unknown> }>): ToolSpec[] {
  return tools.map(({ name, description, inputSchema }) => {
    const { $schema: _ignored, ...schema } = inputSchema;
    const parameters = schema.type === 'object' ? schema : { type: 'object', properties: {} };
    return { name, description, parameters };
  });
}
