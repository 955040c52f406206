import type { ToolOutcome, ToolRequest } from '../common/tool-outcome';
import { checkpointWorkspace, restoreWorkspace } from './checkpoint-activities';
import { runCommand } from './commands';
import { McpConnections } from './mcp/connections';
import { createMcpActivities } from './mcp/mcp-activities';
import { createReadHooks } from './hooks/read-hooks';
import { runHook } from './hooks/run-hook';
import { createReadWorkspaceSettings } from './settings/read-workspace-settings';
import { createNotifyHuman } from './notify/notify-human';
import { readNestedInstructions, readProjectInstructions } from './project-instructions';
import { readRunEnvironment } from './environment/read-environment';
import { loadForkOrigin } from './load-fork';
import { runProgress } from './progress/run-progress';
import { reserveTreeBudget } from './tree/reserve-tree-budget';
import { createCallModel } from './model/call-model';
import type { ProviderConfig } from '../connection/provider-config';
import { createRedactor, type Redactor } from '../secrets/redact';
import { redactCheckpoint, redactCommandResult, redactToolOutcome, withRedaction } from '../secrets/redacting-activity';
import { secretsFromEnv } from '../secrets/worker-secrets';
import { capCatalogErrors, capOutcomeError, withCappedErrors } from '../secrets/capped-errors';
import { toolActivities } from './tools';
import { READ_ONLY_TOOLS } from '../common/tool-schemas';
import { workspaceChanges } from './tools/workspace-changes';
import { attachMentions } from './tools/attach-mentions';
import { readSourceFile } from './tools/read-source-file';
import { userToolDescriptor, type ToolDefinition } from './tools/define-tool';
import { userToolActivities } from './tools/user-tools';

export interface ActivityConfig {
  provider: ProviderConfig;
  /** The worker's open MCP servers; it closes them when it stops. */
  mcp?: McpConnections;
  /** The operator's webhook for runs that wait for a human (BAREAGENT_NOTIFY_WEBHOOK). */
  notifyWebhook?: string | undefined;
  /** The approvers' page as they reach it (BAREAGENT_UI_URL): webhooks then link to the run's page. */
  approverPageUrl?: string | undefined;
  /** The worker's own tools (`defineTool`): one activity each, and their schemas for the model. */
  tools?: readonly ToolDefinition[];
  /** The operator's hooks file; default BAREAGENT_HOOKS_FILE. */
  hooksFile?: string | undefined;
}

/**
 * Every activity the worker registers. Workflows import this module's types only.
 *
 * The worker's secrets stay out of the history: a provider (or a proxy in front of it) that puts
 * the key it received into an error message, or a command that prints one, would otherwise have
 * it recorded in the activity's result or failure. See src/secrets.
 */
export function createActivities(config: ActivityConfig) {
  const redactor = createRedactor([...secretsFromEnv(), config.provider.apiKey]);
  const tools = config.tools ?? [];
  return {
    callModel: withCappedErrors(
      withRedaction(createCallModel(config.provider, { userTools: new Map(tools.map((tool) => [tool.name, userToolDescriptor(tool)])), readTools: readToolsOf(redactor) }), redactor),
    ),
    loadForkOrigin: withRedaction(loadForkOrigin, redactor),
    runProgress,
    reserveTreeBudget,
    notifyHuman: createNotifyHuman(config.notifyWebhook, config.approverPageUrl ?? (process.env.BAREAGENT_UI_URL || undefined)),
    ...createToolActivities(redactor, config.mcp, config.hooksFile),
    ...redactedTools(userToolActivities(tools), redactor),
  };
}

/** The tools and background commands, for a worker that runs them only (createToolWorker). */
export function createToolActivities(redactor: Redactor = createRedactor(secretsFromEnv()), mcp = new McpConnections(), hooksFile = process.env.BAREAGENT_HOOKS_FILE || undefined) {
  const { listMcpTools, mcpCallTool } = createMcpActivities(mcp);
  return {
    runCommand: withRedaction(runCommand, redactor, redactCommandResult),
    ...redactedTools(toolActivities, redactor),
    listMcpTools: withCappedErrors(withRedaction(listMcpTools, redactor), capCatalogErrors),
    mcpCallTool: withCappedErrors(withRedaction(mcpCallTool, redactor, redactToolOutcome), capOutcomeError),
    readProjectInstructions: withRedaction(readProjectInstructions, redactor, (found, r) => ({ ...found, text: r.redact(found.text) })),
    readNestedInstructions: withRedaction(readNestedInstructions, redactor, (found, r) => ({ ...found, text: r.redact(found.text) })),
    readRunEnvironment: withRedaction(readRunEnvironment, redactor, (found, r) => ({ ...found, listing: r.redact(found.listing) })),
    // A file name or a git error could hold a worker secret: the summary and errors are redacted.
    checkpointWorkspace: withRedaction(checkpointWorkspace, redactor, redactCheckpoint),
    restoreWorkspace: withRedaction(restoreWorkspace, redactor, (r, x) => (r.ok ? { ...r, changed: r.changed.map((c) => x.redact(c)), ...(r.notRestored ? { notRestored: r.notRestored.map((line) => x.redact(line)) } : {}) } : { ...r, error: x.redact(r.error) })),
    readHooks: createReadHooks(hooksFile),
    readWorkspaceSettings: withRedaction(createReadWorkspaceSettings(hooksFile), redactor),
    // A mentioned file is a read like read_file's: a worker secret in it is redacted before it enters the history.
    attachMentions: withRedaction(attachMentions, redactor, (found, r) => ({
      attachments: found.attachments.map((a) => ({ ...a, path: r.redact(a.path), text: r.redact(a.text) })),
      skipped: found.skipped.map((s) => ({ path: r.redact(s.path), reason: r.redact(s.reason) })),
    })),
    // Rewritten whole by a draft turn: text the redactor would change is not the file's, so it is not given at all.
    readSourceFile: withRedaction(readSourceFile, redactor, (found, r) => ('text' in found && r.redact(found.text) !== found.text ? { skipped: 'holds a secret of the worker' } : found)),
    workspaceChanges: withRedaction(workspaceChanges, redactor, (found, r) => ({ ...found, files: found.files.map((name) => r.redact(name)) })),
    runHook: withRedaction(runHook, redactor, (run, r) => ({ ...run, stdout: r.redact(run.stdout), stderr: r.redact(run.stderr) })),
  };
}

/** The read-only tools a model call may run ahead for its reply, redacted as their own activities are. */
function readToolsOf(redactor: Redactor) {
  const reads = Object.entries(toolActivities).filter(([name]) => READ_ONLY_TOOLS.has(name));
  return redactedTools(Object.fromEntries(reads), redactor);
}

function redactedTools<T extends Record<string, (request: ToolRequest) => Promise<ToolOutcome>>>(tools: T, redactor: Redactor): T {
  const entries = Object.entries(tools).map(([name, tool]) => [name, withRedaction(tool, redactor, redactToolOutcome)]);
  return Object.fromEntries(entries) as T;
}

export type Activities = ReturnType<typeof createActivities>;
export type ToolActivityName = keyof typeof toolActivities;
