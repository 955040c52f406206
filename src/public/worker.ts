/**
 * `bareagent-temporal/worker`: the agent in your own Temporal worker (docs/embedding.md).
 * `Worker.create({ ..., workflowsPath, plugins: [new BareAgentPlugin({ tools })] })`.
 */
export { BareAgentPlugin, type BareAgentPluginOptions } from '../worker/bareagent-plugin';
export { defineTool, type ToolContext, type ToolDefinition, type UserToolEffect } from '../activities/tools/define-tool';
export { ensureSearchAttributes } from '../worker/ensure-search-attributes';
