/**
 * `bareagent-temporal/workflow`: re-export `agentRun` from your workflows file, and run it as a
 * child of your own workflows with `executeChild(agentRun, { args: [input] })` (docs/embedding.md).
 * This module is workflow code: the SDK bundles it with your workflows.
 */
export { agentRun } from '../workflows/agent-run';
export type { AgentRunInput } from '../common/input';
export type { AgentRunResult } from '../common/wire';
