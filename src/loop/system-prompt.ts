import type { PermissionMode } from '../common/input';
import type { RunEnvironment } from '../common/run-environment';
import { describeNetwork, type SandboxRequest } from '../common/sandbox';

/** What the default system prompt is built from: the recorded environment and the run's own settings. */
export interface SystemPromptFacts {
  environment: RunEnvironment;
  agentType: string;
  /** 0 for a top-level run; a subagent's answer goes back to the agent that started it. */
  depth: number;
  permissionMode: PermissionMode;
  sandbox: SandboxRequest;
  /** The tools the run offers: conventions for tools it lacks are left out. */
  tools: ReadonlySet<string>;
}

const MODES: Record<PermissionMode, string> = {
  default: 'reading and editing files run at once; write_file and commands that are not plainly read-only wait for a human, who may deny them',
  auto: 'tools run without asking, except commands the guard finds dangerous',
  plan: 'read-only: anything that writes is denied',
  bypass: 'nothing asks; deny rules still hold',
};

const ROLES: Record<string, string> = {
  explore: 'a read-only explorer: find what the task asks about and report it, with file paths and line numbers',
  plan: 'a read-only planner: study the code and answer with a concrete, step-by-step plan; change nothing',
  'code-review': 'a read-only code reviewer: read the code in question and report concrete problems, each with its file and line',
};

/**
 * The coding agent's default system prompt: who it is and the tool habits that matter most to a
 * small model (read before editing, exact old_text, run the tests, answer without a tool call when
 * done). The same for every run of one configuration, so that a model server's prompt cache keeps
 * it, and the tool definitions its chat template renders after it, from one run to the next; what
 * is the run's own (its workspace, date, listing) is its run context (`runContext`).
 */
export function defaultSystemPrompt(facts: SystemPromptFacts): string {
  const { tools } = facts;
  const role = ROLES[facts.agentType];
  const who = role
    ? `You are a subagent of BareAgent, ${role}. Your final answer goes back to the agent that started you: make it self-contained.`
    : facts.depth > 0
      ? 'You are a subagent of BareAgent, a coding agent, given one task by another agent. Your final answer goes back to that agent: make it self-contained.'
      : 'You are BareAgent, a coding agent. You work on the task in the workspace the first message describes, through tool calls, then answer.';
  const readOnly = !facts.sandbox.writableWorkspace;
  const habits = habitsOf(tools, readOnly);
  return [who, `# How to work\n${habits.join('\n')}`].join('\n\n');
}

/**
 * The run's own context, sent at the head of its first message: the workspace, date, OS, what the
 * sandbox allows, the permission mode and the listing read at run start. Kept short: about 500
 * tokens with a full listing.
 */
export function runContext(facts: SystemPromptFacts): string {
  const { environment: env } = facts;
  const readOnly = !facts.sandbox.writableWorkspace;
  const environment = [
    `- Workspace: ${env.workspace} (tool paths are relative to it; nothing outside it is reachable)`,
    ...(env.date ? [`- Date: ${env.date}`] : []),
    `- OS: ${env.os}`,
    `- Commands run in a sandbox: network ${describeNetwork(facts.sandbox.network)}; workspace ${readOnly ? 'read-only' : 'writable'}${
      facts.sandbox.readOnlyPaths.length ? `; also readable: ${facts.sandbox.readOnlyPaths.join(', ')}` : ''
    }; a private /tmp`,
    `- Permission mode ${facts.permissionMode}: ${MODES[facts.permissionMode]}. A denied call returns "User denied."; do something else`,
  ];
  const more = env.omitted > 0 ? `\n(${env.omitted} more entries not shown: use glob)` : '';
  const listing = env.listing ? `${env.listing}${more}` : '(empty)';
  return [`# Environment\n${environment.join('\n')}`, `# Workspace at run start\n${listing}`].join('\n\n');
}

function habitsOf(tools: ReadonlySet<string>, readOnly: boolean): string[] {
  return [
    tools.has('glob') || tools.has('grep') ? '- Find files with glob and grep; read them with read_file before you change or explain them.' : undefined,
    tools.has('edit_file')
      ? '- edit_file: read the file first in this run; old_text must be copied exactly from read_file output, without the "12: " line-number prefixes, and be unique in the file. Prefer several small edits to one large one; use write_file for new files.'
      : undefined,
    tools.has('bash') ? `- Run the project's tests or the command the task names with bash${readOnly ? '' : ' after a change, and fix what fails'}.` : undefined,
    '- An error result says what went wrong: change the call, do not repeat it unchanged.',
    tools.has('final_answer')
      ? '- When the task is done and checked, call final_answer with your answer (for a change: what you changed and how you checked it). A reply without a tool call is not an answer. Do not ask the user to do the work.'
      : '- When the task is done, reply with a short summary and no tool call. Do not ask the user to do the work.',
  ].filter((line): line is string => line !== undefined);
}
