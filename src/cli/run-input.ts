import path from 'node:path';
import { AgentRunInput } from '../common/input';
import type { McpServers } from '../common/mcp';
import { withProfile } from '../common/profiles';
import { budgetsFromFlags, type BudgetFlags } from '../runs/budget-flags';
import { flagErrors } from '../runs/flag-errors';
import { UsageError } from '../runs/usage-error';

export interface RunFlags extends BudgetFlags {
  workspace?: string;
  model?: string;
  system?: string;
  appendSystem?: string;
  mode?: string;
  allow?: string[];
  deny?: string[];
  maxIterations?: string;
  approvalTimeout?: string;
  stream?: boolean;
  network?: string;
  readPath?: string[];
  projectInstructions?: boolean;
  trustWorkspace?: boolean;
  notify?: string;
  profile?: string;
  finalAnswer?: string;
  attach?: string;
  /** Stay open this long after an answer for a follow-up (the protocols' sessions; no CLI flag). */
  idleTimeout?: string;
  /** MCP servers a client offered, asked about at run start (an editor's over ACP; no CLI flag). */
  clientMcpServers?: McpServers;
}

/** `--network none|full|host,host`: the run's sandbox network choice. */
function networkFlag(value: string): unknown {
  if (value === 'none' || value === 'full') return value;
  return { allowHosts: value.split(',').map((host) => host.trim()).filter(Boolean) };
}

/** Command-line flags to a validated `AgentRunInput`; a bad flag is reported before anything starts. */
export function buildRunInput(prompt: string, flags: RunFlags): AgentRunInput {
  const input: Record<string, unknown> = {
    prompt,
    workspace: path.resolve(flags.workspace ?? process.cwd()),
    ...(flags.model ? { model: flags.model } : {}),
    ...(flags.system ? { systemPrompt: flags.system } : {}),
    ...(flags.appendSystem ? { appendSystemPrompt: flags.appendSystem } : {}),
    ...(flags.mode ? { permissionMode: flags.mode } : {}),
    ...(flags.profile !== undefined ? { profile: flags.profile } : {}),
    ...(flags.finalAnswer ? { finalAnswer: flags.finalAnswer } : {}),
    ...(flags.attach ? { attachMentionedPaths: flags.attach } : {}),
    ...(flags.allow?.length || flags.deny?.length
      ? { permissionRules: { ...(flags.allow?.length ? { allow: flags.allow } : {}), ...(flags.deny?.length ? { deny: flags.deny } : {}) } }
      : {}),
    ...(flags.maxIterations ? { maxIterations: Number(flags.maxIterations) } : {}),
    ...(flags.approvalTimeout ? { approvalTimeout: flags.approvalTimeout } : {}),
    ...(flags.idleTimeout ? { idleTimeout: flags.idleTimeout } : {}),
    ...(flags.clientMcpServers ? { clientMcpServers: flags.clientMcpServers } : {}),
    ...(flags.stream === false ? { stream: false } : {}),
    ...(flags.projectInstructions === false ? { projectInstructions: false } : {}),
    ...(flags.trustWorkspace ? { trustWorkspaceSettings: true } : {}),
    ...(Object.keys(budgetsFromFlags(flags)).length ? { budgets: budgetsFromFlags(flags) } : {}),
    ...(flags.notify ? { notify: { webhook: flags.notify } } : {}),
    ...(flags.network || flags.readPath?.length
      ? {
          sandbox: {
            ...(flags.network ? { network: networkFlag(flags.network) } : {}),
            ...(flags.readPath?.length ? { readOnlyPaths: flags.readPath.map((dir) => path.resolve(dir)) } : {}),
          },
        }
      : {}),
  };
  const parsed = AgentRunInput.safeParse(withProfile(input));
  if (!parsed.success) throw new UsageError(flagErrors(parsed.error));
  return input as AgentRunInput;
}
