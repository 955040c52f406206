/**
 * `npm run record-histories`: runs one scenario per workflow feature against a fresh dev server
 * and the scripted model, and stores each history in test/histories/. The replay test replays
 * them all with the current workflow code: a change that would break running workflows fails CI.
 * Re-record only for a change that is meant to be incompatible, and say so in the commit.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { execFileSync } from 'node:child_process';
import { NativeConnection, Runtime, DefaultLogger } from '@temporalio/worker';
import { ensureDevServer } from '../../src/server/dev-server';
import { findOrBuildTemporalCli } from '../../src/server/temporal-cli';
import { createBareAgentWorker } from '../../src/worker/create-worker';
import { freePort } from '../support/free-port';
import { byPrompt } from '../support/by-prompt';
import { everythingServer, MCP_READ_PATHS } from '../support/mcp-servers';
import { ScriptedModelServer, type Scenario, type ScriptStep } from '../support/scripted-model-server';
import { decidePermissionUpdate, permissionDecisionSignal, statusQuery, stepsQuery, userMessageSignal } from '../../src/common/contract';
import { WebhookReceiver } from '../support/webhook-receiver';

/** A webhook that refuses with 404 (given up at once), started by main() before any recording. */
let refusingWebhook: WebhookReceiver | undefined;

interface Recording {
  name: string;
  scenario: Scenario;
  input: (workspace: string) => Record<string, unknown>;
  files?: Record<string, string>;
  /** Acts on the run while it works (answers a question, sends a follow-up...). */
  drive?: (handle: WorkflowHandle) => Promise<void>;
  /** Record the first run of a continue-as-new chain instead of the last. */
  firstRun?: boolean;
  /** Child workflows to record too: file name → workflow id suffix after the run's id. */
  children?: Record<string, string>;
  /** Runs to finish first, not recorded (a fork's origin): started with the same worker and model. */
  before?: (run: (workflowId: string, input: Record<string, unknown>) => Promise<void>, workspace: string) => Promise<void>;
}

async function waitForPhase(handle: WorkflowHandle, phase: string): Promise<void> {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
    if ((await handle.query(statusQuery)).phase === phase) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${handle.workflowId} never reached phase ${phase}`);
}

async function waitForPending(handle: WorkflowHandle): Promise<string> {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
    const status = await handle.query(statusQuery);
    const first = status.pendingPermissions[0];
    if (first) return first.requestId;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${handle.workflowId} never asked for permission`);
}

/** The request id of the question about tool call `toolCallId`, once it is asked. */
async function waitForCall(handle: WorkflowHandle, toolCallId: string): Promise<string> {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
    const asked = (await handle.query(statusQuery)).pendingPermissions.find((p) => p.toolCallId === toolCallId);
    if (asked) return asked.requestId;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${handle.workflowId} never asked about ${toolCallId}`);
}

export const recordings: Recording[] = [
  {
    // Anthropic's Messages API: thinking blocks with signatures carried to the next turn, cache usage in the replies.
    name: 'anthropic-thinking-and-cache',
    files: { 'notes.md': '# Notes\nTODO: ship\n' },
    scenario: [
      { reasoning: 'Find the notes first.', text: 'Looking.', toolCalls: [{ id: 'toolu_1', name: 'read_file', arguments: { file_path: 'notes.md' } }] },
      { reasoning: 'One TODO left.', toolCalls: [{ id: 'toolu_2', name: 'grep', arguments: { pattern: 'TODO' } }] },
      { text: 'One TODO: ship.' },
    ],
    input: (workspace) => ({ prompt: 'What is left to do?', workspace, provider: 'anthropic', model: 'm', modelSettings: { reasoningEffort: 'low', maxOutputTokens: 4096 } }),
  },
  {
    name: 'tools-round-trip',
    files: { 'notes.md': '# Notes\nTODO: ship\n' },
    scenario: [
      {
        text: 'Looking around.',
        toolCalls: [
          { id: 'c1', name: 'glob', arguments: { pattern: '*.md' } },
          { id: 'c2', name: 'grep', arguments: { pattern: 'TODO' } },
          { id: 'c3', name: 'read_file', arguments: { file_path: 'notes.md' } },
          { id: 'c4', name: 'nope', arguments: {} },
          { id: 'c5', name: 'read_file', arguments: '{"broken' },
        ],
      },
      {
        toolCalls: [
          { id: 'c6', name: 'write_file', arguments: { file_path: 'out.txt', content: 'x' } },
          { id: 'c7', name: 'edit_file', arguments: { file_path: 'notes.md', old_text: 'ship', new_text: 'shipped' } },
          { id: 'c8', name: 'bash', arguments: { command: 'cat out.txt' } },
        ],
      },
      { text: 'All done.' },
    ],
    input: (workspace) => ({ prompt: 'Tidy the notes', model: 'm', workspace, permissionMode: 'auto' }),
  },
  {
    name: 'streaming-with-fallback',
    scenario: [
      { chunks: ['Streaming ', 'text.'], toolCalls: [{ id: 's1', name: 'glob', arguments: { pattern: '*' } }] },
      { text: 'Fallback answer.', streamUnsupported: true },
      { text: 'Fallback answer.' },
    ],
    input: (workspace) => ({ prompt: 'Stream', model: 'm', workspace }),
  },
  {
    name: 'permission-allowed-by-signal',
    scenario: [{ toolCalls: [{ id: 'p1', name: 'bash', arguments: { command: 'touch approved.txt' } }] }, { text: 'Ran it.' }],
    input: (workspace) => ({ prompt: 'Run echo', model: 'm', workspace }),
    drive: async (handle) => {
      const requestId = await waitForPending(handle);
      await handle.signal(permissionDecisionSignal, { requestId, decision: 'allow' });
    },
  },
  {
    name: 'permission-denied-by-update',
    scenario: [{ toolCalls: [{ id: 'p2', name: 'write_file', arguments: { file_path: 'a.txt', content: 'a' } }] }, { text: 'Not written.' }],
    input: (workspace) => ({ prompt: 'Write a', model: 'm', workspace }),
    drive: async (handle) => {
      const requestId = await waitForPending(handle);
      await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId, decision: 'deny', reason: 'not today' }] });
    },
  },
  {
    name: 'permission-timed-out',
    scenario: [{ toolCalls: [{ id: 'p3', name: 'bash', arguments: { command: 'make deploy' } }] }, { text: 'Timed out.' }],
    input: (workspace) => ({ prompt: 'Deploy', model: 'm', workspace, approvalTimeout: '1s' }),
  },
  {
    name: 'iteration-limit',
    scenario: () => ({ toolCalls: [{ name: 'glob', arguments: { pattern: '*' } }] }),
    input: (workspace) => ({ prompt: 'Loop', model: 'm', workspace, maxIterations: 2 }),
  },
  {
    name: 'provider-failure',
    scenario: () => ({ status: 400, errorMessage: 'bad request' }),
    input: (workspace) => ({ prompt: 'Fail', model: 'm', workspace, stream: false }),
  },
  {
    // Unlimited attempts for lost workers: the activity counts the provider's failures itself.
    name: 'provider-retries-counted',
    scenario: [
      { status: 503, errorMessage: 'upstream is down' },
      { status: 429, errorMessage: 'slow down', headers: { 'retry-after': '1' } },
      { text: 'Third time lucky.' },
    ],
    input: (workspace) => ({ prompt: 'Try', model: 'm', workspace, stream: false }),
  },
  {
    name: 'background-job-and-completion-proposal',
    scenario: [
      { toolCalls: [{ id: 'j1', name: 'background_run', arguments: { command: 'sleep 1; echo built', task_id: 'build' } }] },
      { text: 'Proposing to finish.' },
      { text: 'Build reported; done.' },
    ],
    input: (workspace) => ({ prompt: 'Build in the background', model: 'm', workspace, permissionMode: 'auto' }),
    children: { 'background-job-child': '.build' },
  },
  {
    name: 'checked-tool-calls',
    scenario: [
      {
        toolCalls: [
          { id: 'k1', name: 'bash', arguments: { command: '  ' } },
          { id: 'k2', name: 'background_run', arguments: { command: 'sleep 1; echo first', task_id: 'first' } },
          { id: 'k3', name: 'background_run', arguments: { command: 'echo second', task_id: 'second' } },
        ],
      },
      { text: 'Proposing to finish.' },
      { text: 'First reported; done.' },
    ],
    input: (workspace) => ({ prompt: 'Blank call, then two jobs where one may run', model: 'm', workspace, permissionMode: 'auto', concurrency: { backgroundJobs: 1, subagents: 1 } }),
  },
  {
    name: 'subagent-foreground-and-background',
    scenario: byPrompt({
      Delegate: [
        {
          toolCalls: [
            { id: 's1', name: 'subagent', arguments: { task: 'Look', agent_type: 'explore' } },
            { id: 's2', name: 'subagent', arguments: { task: 'Later', agent_type: 'plan', run_in_background: true } },
          ],
        },
        { text: 'Waiting for the plan.' },
        { text: 'All delegated work is back.' },
      ],
      Look: [{ toolCalls: [{ id: 'l1', name: 'glob', arguments: { pattern: '*' } }] }, { text: 'Nothing here.' }],
      Later: [{ text: 'A plan.' }],
    }),
    input: (workspace) => ({ prompt: 'Delegate', model: 'm', workspace }),
  },
  {
    // One budget for the tree: each call reserves from the root's ledger (an update, by a local activity in a subagent), then reports its spend.
    name: 'tree-budget',
    scenario: byPrompt({
      Fan: [
        {
          toolCalls: [
            { id: 't1', name: 'subagent', arguments: { task: 'Bg part', agent_type: 'general-purpose', run_in_background: true } },
            { id: 't2', name: 'subagent', arguments: { task: 'Fg part', agent_type: 'general-purpose', budget: { max_tokens: 5000 } } },
          ],
          usage: { prompt_tokens: 1500, completion_tokens: 500 },
        },
        { text: 'Never reached.' },
      ],
      'Bg part': (i) => ({ toolCalls: [{ name: 'glob', arguments: { pattern: `b${i}*` } }], usage: { prompt_tokens: 1500, completion_tokens: 500 } }),
      'Fg part': (i) => ({ toolCalls: [{ name: 'glob', arguments: { pattern: `f${i}*` } }], usage: { prompt_tokens: 1500, completion_tokens: 500 } }),
    }),
    input: (workspace) => ({ prompt: 'Fan', model: 'm', workspace, permissionMode: 'auto', stream: false, budgets: { maxTokens: 8000 } }),
    children: { 'tree-budget-foreground-child': '.sub-2' },
  },
  {
    name: 'follow-up-and-idle',
    scenario: [{ text: 'First answer.' }, { text: 'Answer to the follow-up.' }],
    input: (workspace) => ({ prompt: 'Question one', model: 'm', workspace, idleTimeout: '30s' }),
    drive: async (handle) => {
      await waitForPhase(handle, 'idle');
      await handle.signal(userMessageSignal, { text: 'Question two' });
    },
  },
  {
    name: 'compaction-micro-full-and-failed-summary',
    files: Object.fromEntries([1, 2, 3, 4, 5].map((n) => [`f${n}.txt`, `${'x'.repeat(2000)}${n}\n`])),
    scenario: (() => {
      let turn = 0;
      let summaries = 0;
      const turns: ScriptStep[] = [1, 2, 3, 4, 5].map((n) => ({ toolCalls: [{ id: `r${n}`, name: 'read_file', arguments: { file_path: `f${n}.txt` } }] }));
      return (body: { tools?: unknown[] }) =>
        body.tools ? (turns[turn++] ?? { text: 'Compacted and done.' }) : summaries++ === 0 ? { status: 400, errorMessage: 'no summary' } : { text: 'Summary of the reads.' };
    })(),
    input: (workspace) => ({ prompt: 'Read', model: 'm', workspace, stream: false, compaction: { thresholdTokens: 600, keepRecentToolResults: 1, keepRecentMessages: 2 } }),
  },
  {
    name: 'acceptance-retry',
    scenario: [{ text: 'Done?' }, { toolCalls: [{ id: 'w', name: 'write_file', arguments: { file_path: 'ok.txt', content: 'ok' } }] }, { text: 'Done.' }],
    input: (workspace) => ({ prompt: 'Make ok.txt', model: 'm', workspace, permissionMode: 'auto', acceptance: { command: 'test -f ok.txt' } }),
  },
  {
    name: 'stop-no-progress',
    scenario: () => ({ toolCalls: [{ name: 'grep', arguments: { pattern: 'needle' } }] }),
    input: (workspace) => ({ prompt: 'Search', model: 'm', workspace }),
  },
  {
    name: 'stop-budget-tokens',
    scenario: () => ({ toolCalls: [{ name: 'glob', arguments: { pattern: `*.${Math.random()}` } }], usage: { prompt_tokens: 500, completion_tokens: 10 } }),
    input: (workspace) => ({ prompt: 'Spend', model: 'm', workspace, budgets: { maxTokens: 3000 } }),
  },
  {
    name: 'cancelled-during-bash',
    scenario: [{ toolCalls: [{ id: 'b', name: 'bash', arguments: { command: 'sleep 30' } }] }],
    input: (workspace) => ({ prompt: 'Wait', model: 'm', workspace, permissionMode: 'auto' }),
    drive: async (handle) => {
      await waitForPhase(handle, 'running_tool');
      await new Promise((r) => setTimeout(r, 500));
      await handle.cancel();
    },
  },
  {
    name: 'continue-as-new-first-run',
    firstRun: true,
    scenario: (_body: unknown, i: number) => (i < 25 ? { toolCalls: [{ name: 'glob', arguments: { pattern: `*.${i}` } }] } : { text: 'Long run done.' }),
    input: (workspace) => ({ prompt: 'Go long', model: 'm', workspace }),
  },
  {
    // Under the parsed-shell guard (patched): a literal command runs unasked, an expansion asks, a
    // deny rule holds for a path spelled another way, and plan-free bash runs in the sandbox.
    name: 'sandboxed-commands-parsed-guard',
    files: { '.env': 'TOKEN=x\n' },
    scenario: [
      {
        toolCalls: [
          { id: 'g1', name: 'bash', arguments: { command: 'ls -a' } },
          { id: 'g2', name: 'bash', arguments: { command: 'echo "$HOME"' } },
          { id: 'g3', name: 'write_file', arguments: { file_path: './.env', content: 'pwned' } },
        ],
      },
      { text: 'Checked.' },
    ],
    input: (workspace) => ({ prompt: 'Look around', model: 'm', workspace, permissionRules: { deny: ['write_file(.env)'] }, sandbox: { network: 'none' } }),
    drive: async (handle) => {
      const requestId = await waitForPending(handle);
      await handle.signal(permissionDecisionSignal, { requestId, decision: 'allow' });
    },
  },
  {
    // Under the issue-13 patches: an empty reply nudged, the same failing call warned at the third
    // time, a reply cut by the token limit recovered whole, the provider's token count kept.
    name: 'loop-behaviours-patched',
    scenario: [
      { text: '' },
      ...[1, 2, 3].map(() => ({ toolCalls: [{ name: 'read_file', arguments: { file_path: 'missing.txt' } }] })),
      { text: 'Part one, ', finishReason: 'length' },
      { text: 'part two.' },
    ],
    input: (workspace) => ({ prompt: 'Try', model: 'm', workspace, stream: false }),
  },
  {
    // MCP servers listed at run start (one that does not start), a read-only call and one that asks.
    name: 'mcp-tools',
    scenario: [
      {
        toolCalls: [
          { id: 'm1', name: 'mcp__everything__echo', arguments: { message: 'hi' } },
          { id: 'm2', name: 'mcp__everything__toggle-simulated-logging', arguments: {} },
          { id: 'm3', name: 'mcp__broken__x', arguments: {} },
        ],
      },
      { text: 'Done.' },
    ],
    input: (workspace) => ({
      prompt: 'Use MCP',
      model: 'm',
      workspace,
      sandbox: { network: 'none', readOnlyPaths: MCP_READ_PATHS },
      mcpServers: { everything: everythingServer(), broken: { command: 'no-such-mcp-server-command' } },
    }),
    drive: async (handle) => {
      const requestId = await waitForPending(handle);
      await handle.signal(permissionDecisionSignal, { requestId, decision: 'allow' });
    },
  },
  {
    // The workspace's AGENTS.md read at run start and put into the system prompt.
    name: 'project-instructions',
    files: { 'AGENTS.md': 'Build with `make`.\n' },
    scenario: [{ toolCalls: [{ id: 'p1', name: 'glob', arguments: { pattern: '*.md' } }] }, { text: 'Done.' }],
    input: (workspace) => ({ prompt: 'Look', model: 'm', workspace, systemPrompt: 'Be brief.' }),
  },
  {
    name: 'fork-at-step',
    // The fork's first user message is the origin's prompt: both take turns from one script.
    scenario: byPrompt({
      Origin: [
        { text: 'Looking.', toolCalls: [{ id: 'o1', name: 'glob', arguments: { pattern: '*' } }] },
        { toolCalls: [{ id: 'o2', name: 'write_file', arguments: { file_path: 'late.txt', content: 'late' } }] },
        { text: 'Origin done.' },
        { text: 'Fork done.' },
      ],
    }),
    before: (run, workspace) => run('history-fork-origin', { prompt: 'Origin', model: 'm', workspace, permissionMode: 'auto' }),
    input: (workspace) => ({ prompt: 'Fork it', model: 'm', workspace, forkFrom: { workflowId: 'history-fork-origin', step: 1 } }),
  },
  {
    // Checkpoints at run start and after each changing tool round; a fork that restores step 1's files.
    name: 'workspace-checkpoints',
    files: { 'old.txt': 'old\n' },
    scenario: byPrompt({
      'Checkpoint origin': [
        { toolCalls: [{ id: 'k1', name: 'write_file', arguments: { file_path: 'a.txt', content: 'one\n' } }] },
        { toolCalls: [{ id: 'k2', name: 'bash', arguments: { command: 'echo two >> a.txt && rm old.txt' } }] },
        { text: 'Origin done.' },
        { toolCalls: [{ id: 'k3', name: 'read_file', arguments: { file_path: 'a.txt' } }] },
        { text: 'Fork done.' },
      ],
    }),
    before: (run, workspace) => run('history-checkpoint-origin', { prompt: 'Checkpoint origin', model: 'm', workspace, permissionMode: 'bypass' }),
    input: (workspace) => ({ prompt: 'Fork with files', model: 'm', workspace, permissionMode: 'bypass', forkFrom: { workflowId: 'history-checkpoint-origin', step: 1, restoreFiles: true } }),
  },
  {
    // Step 0 taken before the first round that may write (a local activity before the write), none at the start.
    name: 'lazy-start-checkpoint',
    files: { 'a.txt': 'one\n' },
    scenario: [
      { toolCalls: [{ id: 'l1', name: 'read_file', arguments: { file_path: 'a.txt' } }] },
      { toolCalls: [{ id: 'l2', name: 'write_file', arguments: { file_path: 'a.txt', content: 'two\n' } }] },
      { text: 'Read, then wrote.' },
    ],
    input: (workspace) => ({ prompt: 'Read then write', model: 'm', workspace, permissionMode: 'auto' }),
  },
  {
    // "Allow for the rest of this run": the same command later runs unasked.
    name: 'permission-allowed-for-run',
    scenario: [
      { toolCalls: [{ id: 'a1', name: 'bash', arguments: { command: 'touch once.txt' } }] },
      { toolCalls: [{ id: 'a2', name: 'bash', arguments: { command: 'touch once.txt' } }] },
      { text: 'Ran it twice.' },
    ],
    input: (workspace) => ({ prompt: 'Touch twice', model: 'm', workspace }),
    drive: async (handle) => {
      const requestId = await waitForPending(handle);
      await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId, decision: 'allow_always' }] });
    },
  },
  {
    // A request opens: the webhooks are told by an activity the run does not wait for; a refusing
    // run webhook is recorded as a step, and the answer goes on as usual.
    name: 'notify-human',
    scenario: [{ toolCalls: [{ id: 'n1', name: 'bash', arguments: { command: 'touch told.txt' } }] }, { text: 'Told and done.' }],
    input: (workspace) => ({ prompt: 'Touch', model: 'm', workspace, notify: { webhook: refusingWebhook?.url('/hook') } }),
    drive: async (handle) => {
      const requestId = await waitForPending(handle);
      for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
        const steps = await handle.query(stepsQuery);
        if (steps.some((s) => s.reason === 'notification_failed')) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      await handle.signal(permissionDecisionSignal, { requestId, decision: 'allow' });
    },
  },
  {
    // Hooks from the workspace's settings: a PreToolUse hook blocks rm, a PostToolUse hook logs,
    // a Stop hook refuses the first answer once.
    name: 'hooks',
    files: {
      '.bareagent/settings.json': JSON.stringify({
        hooks: {
          PreToolUse: [{ matcher: 'bash(rm*)', hooks: [{ command: 'echo no rm >&2; exit 2' }] }],
          PostToolUse: [{ hooks: [{ command: 'cat >> log.jsonl' }] }],
          Stop: [{ hooks: [{ command: 'echo \'{"decision":"block","reason":"check again"}\'' }] }],
        },
      }),
    },
    scenario: [
      { toolCalls: [{ id: 'h1', name: 'bash', arguments: { command: 'rm -rf x' } }, { id: 'h2', name: 'glob', arguments: { pattern: '*' } }] },
      { text: 'First answer.' },
      { text: 'Checked again.' },
    ],
    // bypass: `rm -rf x` reaches its PreToolUse hook without a question (hooks run after the guard).
    input: (workspace) => ({ prompt: 'Hooks', model: 'm', workspace, trustWorkspaceSettings: true, permissionMode: 'bypass' }),
  },
  {
    // A provider that reports no usage: estimated, so that the token budget trips.
    name: 'usage-estimated',
    scenario: (_body: unknown, i: number) => ({ toolCalls: [{ name: 'glob', arguments: { pattern: `*.${i}` } }], noUsage: true }),
    input: (workspace) => ({ prompt: 'Spend '.repeat(600), model: 'm', workspace, budgets: { maxTokens: 6000 } }),
  },
  {
    // A directory's AGENTS.md read when the run first touches that directory, and only then.
    name: 'nested-instructions',
    files: { 'AGENTS.md': 'Root rule.\n', 'pkg/AGENTS.md': 'Pkg rule.\n', 'pkg/a.ts': 'export {};\n' },
    scenario: [
      { toolCalls: [{ id: 'n1', name: 'read_file', arguments: { file_path: 'pkg/a.ts' } }] },
      { toolCalls: [{ id: 'n2', name: 'read_file', arguments: { file_path: 'pkg/a.ts' } }] },
      { text: 'Done.' },
    ],
    input: (workspace) => ({ prompt: 'Read', model: 'm', workspace, stream: false }),
  },
  {
    // read_file, glob and grep as local activities (a marker each, no activity task); write_file stays an activity.
    name: 'local-read-tools',
    files: { 'notes.md': 'a needle in the notes\n' },
    scenario: [
      { toolCalls: [{ id: 'l1', name: 'glob', arguments: { pattern: '*.md' } }, { id: 'l2', name: 'grep', arguments: { pattern: 'needle' } }] },
      { toolCalls: [{ id: 'l3', name: 'read_file', arguments: { file_path: 'notes.md' } }, { id: 'l4', name: 'read_file', arguments: { file_path: 'missing.md' } }] },
      { toolCalls: [{ id: 'l5', name: 'write_file', arguments: { file_path: 'out.txt', content: 'x' } }] },
      { text: 'Done.' },
    ],
    input: (workspace) => ({ prompt: 'Read around', model: 'm', workspace, permissionMode: 'auto' }),
  },
  {
    // A reply of reads only, read by its model call (`readAhead` in its result, no marker); then a
    // reply with a denied read, which is read by nobody ahead and runs its allowed read as a local activity.
    name: 'read-ahead',
    files: { 'notes.md': 'a needle in the notes\n', '.env': 'TOKEN=never-read\n' },
    scenario: [
      { toolCalls: [{ id: 'a1', name: 'glob', arguments: { pattern: '*.md' } }, { id: 'a2', name: 'read_file', arguments: { file_path: 'notes.md' } }] },
      { toolCalls: [{ id: 'a3', name: 'grep', arguments: { pattern: 'needle' } }, { id: 'a4', name: 'read_file', arguments: { file_path: '.env' } }] },
      { text: 'Done.' },
    ],
    input: (workspace) => ({ prompt: 'Read ahead', model: 'm', workspace, permissionMode: 'auto', permissionRules: { deny: ['read_file(.env)'] } }),
  },
  {
    // A reply's consecutive read-only calls at once (local activities side by side), a write
    // between reads keeping its place, results in the reply's order.
    name: 'parallel-read-only-calls',
    files: { 'notes.md': 'a needle in the notes\n', 'b.md': 'second\n' },
    scenario: [
      {
        toolCalls: [
          { id: 'p1', name: 'glob', arguments: { pattern: '*.md' } },
          { id: 'p2', name: 'grep', arguments: { pattern: 'needle' } },
          { id: 'p3', name: 'read_file', arguments: { file_path: 'notes.md' } },
          { id: 'p4', name: 'write_file', arguments: { file_path: 'b.md', content: 'changed\n' } },
          { id: 'p5', name: 'read_file', arguments: { file_path: 'b.md' } },
          { id: 'p6', name: 'read_file', arguments: { file_path: 'missing.md' } },
        ],
      },
      { text: 'Done.' },
    ],
    input: (workspace) => ({ prompt: 'Read in parallel', model: 'm', workspace, permissionMode: 'auto' }),
  },
  {
    // Twelve iterations: BareAgentIterations upserted at 1 and 10, and with the completed status at 12.
    name: 'sparse-iteration-attribute',
    files: { 'notes.md': 'notes\n' },
    scenario: [
      ...Array.from({ length: 11 }, (_, i) => ({ toolCalls: [{ id: `g${i}`, name: 'glob', arguments: { pattern: `*${i}.md` } }] })),
      { text: 'Done.' },
    ],
    input: (workspace) => ({ prompt: 'Twelve iterations', model: 'm', workspace, permissionMode: 'auto', checkpoints: false }),
  },
  {
    // A new run's start reads side by side as local activities (MCP tools, AGENTS.md, hooks), the first model call in the same task.
    name: 'run-start-together',
    files: {
      'AGENTS.md': 'Use short answers.\n',
      '.bareagent/settings.json': JSON.stringify({ hooks: { PostToolUse: [{ hooks: [{ command: 'cat >> log.jsonl' }] }] } }),
    },
    scenario: [{ toolCalls: [{ id: 's1', name: 'read_file', arguments: { file_path: 'AGENTS.md' } }] }, { text: 'Started.' }],
    input: (workspace) => ({ prompt: 'Start', model: 'm', workspace, permissionMode: 'auto', trustWorkspaceSettings: true }),
  },
  {
    // The workspace's settings as a snapshot: the run-start question (allowed), an edit of the
    // settings file that asks, a PreToolUse hook only for a call the guard let through (none for an
    // unknown tool), and a subagent that gets the snapshot through its input.
    name: 'workspace-settings',
    files: {
      '.bareagent/settings.json': JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ command: 'cat >> pre.jsonl' }] }] } }),
    },
    scenario: byPrompt({
      Settings: [
        { toolCalls: [{ id: 'w1', name: 'edit_file', arguments: { file_path: '.bareagent/settings.json', old_text: 'pre.jsonl', new_text: 'other.jsonl' } }] },
        { toolCalls: [{ id: 'w2', name: 'glob', arguments: { pattern: '*' } }, { id: 'w3', name: 'nope', arguments: {} }] },
        { toolCalls: [{ id: 'w4', name: 'subagent', arguments: { task: 'Child', agent_type: 'general-purpose' } }] },
        { text: 'Settled.' },
      ],
      Child: [{ toolCalls: [{ id: 'c1', name: 'glob', arguments: { pattern: '*' } }] }, { text: 'Child done.' }],
    }),
    input: (workspace) => ({ prompt: 'Settings', model: 'm', workspace, stream: false }),
    drive: async (handle) => {
      for (const toolCallId of ['workspace-settings', 'w1']) {
        const requestId = await waitForCall(handle, toolCallId);
        await handle.executeUpdate(decidePermissionUpdate, { args: [{ requestId, decision: 'allow' }] });
      }
    },
    children: { 'workspace-settings-child': '.sub-1' },
    // Past the recorder's low continue-as-new threshold: the first run holds all of the above.
    firstRun: true,
  },
  {
    // The default system prompt: the environment read at run start, an edit that misses first (the
    // file not read yet), then read, edited and answered; with an operator's appendSystemPrompt.
    name: 'default-system-prompt',
    files: { 'greet.js': "module.exports = (name) => 'Hello ' + name;\n", 'AGENTS.md': 'Run node test.js.\n' },
    scenario: [
      { toolCalls: [{ id: 'e1', name: 'edit_file', arguments: { file_path: 'greet.js', old_text: "'Hi ' + name", new_text: "'Hello, ' + name" } }] },
      { toolCalls: [{ id: 'r1', name: 'read_file', arguments: { file_path: 'greet.js' } }] },
      { toolCalls: [{ id: 'e2', name: 'edit_file', arguments: { file_path: 'greet.js', old_text: "'Hello ' + name", new_text: "'Hello, ' + name" } }] },
      { text: 'Fixed greet.js.' },
    ],
    input: (workspace) => ({ prompt: 'Fix greet.js', model: 'm', workspace, permissionMode: 'auto', appendSystemPrompt: 'Keep answers short.' }),
  },
  {
    // The syntax gate: an answer refused while the file the run wrote does not parse, then taken.
    name: 'syntax-gate',
    scenario: [
      { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { file_path: 'solution.py', content: 'def f(x):\n    return x *\n' } }] },
      { text: 'Done.' },
      { toolCalls: [{ id: 'w2', name: 'write_file', arguments: { file_path: 'solution.py', content: 'def f(x):\n    return x * 2\n' } }] },
      { text: 'Done now.' },
    ],
    input: (workspace) => ({ prompt: 'Write f in solution.py', model: 'm', workspace, permissionMode: 'auto' }),
  },
  {
    name: 'invalid-input',
    scenario: [],
    input: () => ({ prompt: '', colour: 'blue' }),
  },
];

async function main() {
  Runtime.install({ logger: new DefaultLogger((process.env.LOG_LEVEL as 'ERROR') ?? 'ERROR') });
  const only = process.argv.slice(2);
  const cli = await findOrBuildTemporalCli();
  const home = mkdtempSync(path.join(os.tmpdir(), 'bareagent-record-'));
  const address = `127.0.0.1:${await freePort()}`;
  const server = await ensureDevServer({
    address,
    uiPort: await freePort(),
    home,
    persistent: false,
    // Low enough for the continue-as-new recording, above every other recording's length.
    extraArgs: ['--dynamic-config-value', 'limit.historyCount.suggestContinueAsNew=120'],
  });
  const model = await ScriptedModelServer.start();
  refusingWebhook = await WebhookReceiver.start(() => 404);
  // The receiver is on loopback, which the worker's egress policy refuses unless the operator allows it.
  process.env.BAREAGENT_WORKER_EGRESS_ALLOW = '127.0.0.1';
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const native = await NativeConnection.connect({ address });
  const taskQueue = 'record-histories';
  const worker = await createBareAgentWorker({
    connection: native,
    namespace: 'default',
    taskQueue,
    provider: { baseURL: model.url, requestTimeoutMs: 10_000, endpoints: { anthropic: { baseURL: model.anthropicUrl } } },
  });
  try {
    await worker.runUntil(async () => {
      for (const recording of recordings.filter((r) => only.length === 0 || only.includes(r.name))) {
        model.setScenario('m', recording.scenario);
        const workspace = mkdtempSync(path.join(os.tmpdir(), 'bareagent-record-ws-'));
        for (const [file, content] of Object.entries(recording.files ?? {})) {
          mkdirSync(path.dirname(path.join(workspace, file)), { recursive: true });
          writeFileSync(path.join(workspace, file), content);
        }
        await recording.before?.(async (workflowId, input) => {
          await client.workflow.execute('agentRun', { taskQueue, workflowId, args: [input] }).catch(() => undefined);
        }, workspace);
        const handle = await client.workflow.start('agentRun', {
          taskQueue,
          workflowId: `history-${recording.name}`,
          args: [recording.input(workspace)],
        });
        await recording.drive?.(handle);
        await handle.result().catch(() => undefined);
        // The CLI writes the canonical proto JSON that historyFromJSON reads back.
        const runArgs = recording.firstRun ? ['--run-id', handle.firstExecutionRunId] : [];
        const json = execFileSync(cli, ['workflow', 'show', '--address', address, '--workflow-id', handle.workflowId, ...runArgs, '--output', 'json']);
        writeFileSync(path.join(__dirname, `${recording.name}.json`), json);
        console.log(`recorded ${recording.name}: ${JSON.parse(json.toString()).events.length} events`);
        for (const [file, suffix] of Object.entries(recording.children ?? {})) {
          const child = execFileSync(cli, ['workflow', 'show', '--address', address, '--workflow-id', `${handle.workflowId}${suffix}`, '--output', 'json']);
          writeFileSync(path.join(__dirname, `${file}.json`), child);
          console.log(`recorded ${file}: ${JSON.parse(child.toString()).events.length} events`);
        }
      }
    });
  } finally {
    await native.close();
    await connection.close();
    await model.close();
    await refusingWebhook.close();
    await server.stop();
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
