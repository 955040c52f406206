import type { AgentRunConfig } from '../common/input';
import type { LLMResponse, Message } from '../common/messages';
import { addUsage } from '../loop/budget';
import type { CompactionOptions } from '../loop/compaction';
import { contextTokens, estimateContextTokens, estimateTextTokens, type TokenAnchor } from '../loop/token-count';
import type { Stop, Transition } from '../loop/transitions';
import { modelActivities } from './activity-proxies';
import { compactHistory, type TokenCounting } from './compaction-step';
import { mcpSystemNote } from './mcp-tools';
import { instructionsPrompt } from './project-instructions';
import { basePrompt, contextPrompt } from './run-environment';
import { sandboxRequest } from './sandbox-request';
import type { SandboxRequest } from '../common/sandbox';
import type { McpTool } from '../common/mcp';
import { attempt } from './failures';
import type { RunReporter } from './run-reporter';
import type { RunState } from './run-state';
import { TranscriptSender } from './transcript';
import type { CallGrant, TreeBudget } from './tree-budget';
import { estimatePromptTokens } from '../loop/prompt-estimate';
import { FINAL_ANSWER_TOOL } from '../common/tool-schemas';
import type { ReadAheadRequest } from '../common/read-ahead';
import { readAheadRequest } from './read-ahead';

export interface ModelTurnContext {
  config: Omit<AgentRunConfig, 'resume'>;
  state: RunState;
  report: RunReporter;
  offered: ReadonlySet<string>;
  compaction: CompactionOptions;
  /** Each model call reserves what it may cost from the agent tree's root first, and settles after (src/workflows/tree-budget.ts). */
  tree: Pick<TreeBudget, 'reserve' | 'settle'>;
}

/** The model's side of an iteration: the history compacted when it grew too long, then the call. */
export class ModelTurn {
  /** The provider's count for the history as last sent; valid while the history is that same array. */
  private tokenAnchor: (TokenAnchor & { array: Message[] }) | undefined;
  private readonly transcript: TranscriptSender;
  private readonly sandbox: SandboxRequest;
  /**
   * The model the provider says answered the last call: for a run whose input names none (its
   * worker's default), what `status` shows. Rebuilt by a replay from the recorded results, not
   * carried across continue-as-new (the next call tells it again). A run whose input names none
   * upserts it as `BareAgentModel` when it first answers (or changes), so `list` and the Web UI
   * name it; its later calls' summaries name it too.
   */
  answeredModel: string | undefined;
  /** The provider whose adapter served the last turn, as its reply says; upserted as `BareAgentProvider` when it first answers (or changes). */
  answeredProvider: string | undefined;

  constructor(private readonly context: ModelTurnContext) {
    this.transcript = new TranscriptSender(() => context.state.messages);
    this.sandbox = sandboxRequest(context.config);
  }

  private get iteration(): number {
    return this.context.state.budget.iterations;
  }

  /** `compacted` or `compaction_failed` when the history was rewritten; nothing when it fit. */
  async compact(): Promise<Transition | undefined> {
    const { state, report } = this.context;
    const outcome = await compactHistory(
      state.messages,
      this.context.compaction,
      async (request) => {
        report.setPhase('compacting');
        const response = await this.modelCall(request, [], false, 'compaction summary', undefined, this.context.config.models?.compaction);
        // A summary the budget cannot pay for fails like any other: the history is restored and the turn's own call is refused next.
        if ('kind' in response) throw new Error(response.message ?? 'budget spent');
        return response.text;
      },
      this.tokenCounting(),
    );
    if (outcome.kind === 'none') return undefined;
    state.messages = outcome.messages;
    if (outcome.kind === 'summary_failed') return { kind: 'compaction_failed', error: outcome.error };
    return { kind: 'compacted', mode: outcome.mode, tokensBefore: outcome.tokensBefore, tokensAfter: outcome.tokensAfter };
  }

  /** The provider's count of what the last call sent, and an estimate of only what came since (src/loop/token-count.ts). */
  private tokenCounting(): TokenCounting {
    const anchor = this.tokenAnchor?.array === this.context.state.messages ? this.tokenAnchor : undefined;
    return { count: (messages) => contextTokens(messages, anchor), estimate: estimateContextTokens };
  }

  /** The reply, or the `provider_error` stop when the call failed for good. */
  async call(): Promise<LLMResponse | Stop> {
    const { config, state, report } = this.context;
    report.setPhase('calling_model');
    report.publish({ type: 'model_call', step: this.iteration });
    const sent = state.messages;
    const sentCount = sent.length;
    const anchor = this.tokenAnchor?.array === sent ? this.tokenAnchor : undefined;
    const tools = [...this.context.offered, ...(config.finalAnswer === 'tool' ? [FINAL_ANSWER_TOOL] : [])];
    const called = await attempt(() => this.modelCall(sent, tools, config.stream, `step ${this.iteration}`, anchor));
    if (!called.ok) {
      const { type, message } = called;
      return { kind: 'stop', reason: 'provider_error', message: `LLM call failed: ${type}: ${message}`, detail: `${type}: ${message}`.slice(0, 500) };
    }
    const response = called.value;
    if ('kind' in response) return response; // the budget cannot pay for the call
    this.tokenAnchor = { array: sent, sentCount, inputTokens: response.usage.inputTokens };
    if (response.recoveredToolCalls) state.recoveredToolCallsPending = response.recoveredToolCalls;
    return response;
  }

  /**
   * A draft turn's request (src/workflows/draft-turn.ts): `request` as the one user message, no
   * tools and no system prompt of the run's making, as the model would be asked alone.
   */
  async draft(request: string): Promise<LLMResponse | Stop> {
    this.context.report.setPhase('calling_model');
    this.context.report.publish({ type: 'model_call', step: this.iteration });
    return this.modelCall([{ role: 'user', content: request }], [], false, `step ${this.iteration} · draft`);
  }

  /** `model`: a role's own model (`models.compaction`) instead of the run's. */
  private async modelCall(messages: Message[], tools: string[], stream: boolean, purpose: string, anchor?: TokenAnchor, model?: string): Promise<LLMResponse | Stop> {
    const { config, state } = this.context;
    // Instructions and MCP tools travel only with the turn's own calls (those that offer tools), not with a compaction summary's.
    const turn = tools.length > 0;
    const mcpTools = turn && state.mcp ? state.mcp.servers.flatMap((server) => server.tools) : [];
    // A compaction summary's call keeps only the input's own prompt, as it always had.
    const offered = new Set(tools);
    const own = turn ? basePrompt(config, state, this.sandbox, offered) : config.systemPrompt;
    const systemPrompt = [own, turn ? instructionsPrompt(state.instructions) : undefined, turn ? mcpSystemNote(state.mcp) : undefined]
      .filter(Boolean)
      .join('\n\n');
    const runContext = turn ? contextPrompt(config, state, this.sandbox, offered) : undefined;
    const proxy = modelActivities;
    const readAhead = turn ? readAheadRequest(config, state, this.context.offered) : undefined;
    const promptTokens = () => estimatePromptTokens({ messages, systemPrompt: [systemPrompt, runContext].filter(Boolean).join('\n\n'), tools, mcpTools, anchor });
    const reserved = await this.context.tree.reserve({ promptTokens, maxOutputTokens: config.modelSettings?.maxOutputTokens });
    if (reserved && 'kind' in reserved) return reserved;
    const before = { tokens: state.budget.inputTokens + state.budget.outputTokens, costUsd: state.budget.costUsd };
    try {
      return await this.callWithin(reserved, proxy, { messages, tools, stream, purpose, systemPrompt, ...(runContext ? { runContext } : {}), mcpTools, ...(model ? { model } : {}), ...(readAhead ? { readAhead } : {}) });
    } finally {
      const used = { tokens: state.budget.inputTokens + state.budget.outputTokens - before.tokens, costUsd: state.budget.costUsd - before.costUsd };
      await this.context.tree.settle(reserved, used);
    }
  }

  /** The call itself, with `max_tokens` = the grant when the call holds one. */
  private async callWithin(
    grant: CallGrant | undefined,
    proxy: typeof modelActivities,
    call: { messages: Message[]; tools: string[]; stream: boolean; purpose: string; systemPrompt: string; runContext?: string; mcpTools: McpTool[]; model?: string; readAhead?: ReadAheadRequest },
  ): Promise<LLMResponse> {
    const { config, state } = this.context;
    const { messages, tools, stream, purpose, systemPrompt, mcpTools } = call;
    const model = call.model ?? config.model;
    const settings = grant ? { ...config.modelSettings, maxOutputTokens: grant.outputTokens } : config.modelSettings;
    const response = await proxy.callModel.executeWithOptions(
      { summary: `${model ?? this.answeredModel ?? 'default model'} · ${purpose}` },
      [
        {
          ...(model ? { model } : {}),
          ...(config.provider ? { provider: config.provider } : {}),
          ...(systemPrompt ? { systemPrompt } : {}),
          ...(call.runContext ? { runContext: call.runContext } : {}),
          ...this.transcript.requestFor(messages),
          tools,
          ...(settings ? { settings } : {}),
          // Only a turn's own calls (those that offer tools) must call one; a compaction summary is text.
          ...(config.finalAnswer === 'tool' && tools.length > 0 ? { toolChoice: 'required' as const } : {}),
          ...(mcpTools.length > 0 ? { mcpTools: mcpTools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })) } : {}),
          stream,
          step: this.iteration,
          ...(call.readAhead ? { readAhead: call.readAhead } : {}),
        },
      ],
    );
    this.transcript.replied(messages, response, this.iteration);
    if (response.usageMissing) {
      // Without a count, token and cost budgets would never trip: estimate what was sent and received.
      const inputTokens = estimateContextTokens(messages) + estimateTextTokens(systemPrompt) + estimateTextTokens(call.runContext ?? '') + estimateTextTokens(JSON.stringify(mcpTools));
      response.usage = { inputTokens, outputTokens: estimateTextTokens(response.text + JSON.stringify(response.toolCalls)) };
      state.usageEstimated = true;
      state.usageEstimatePending = true;
    }
    state.budget = addUsage(state.budget, response.usage, response.model || model, config.prices);
    // A role's own model answers only its role: the run is still listed by its turns' model.
    if (!call.model) {
      // A run whose input names no model (its worker's default) is listed by the model that
      // answered; every run by the provider that served it (replies recorded before name none).
      const answered = {
        ...(!config.model && response.model && response.model !== this.answeredModel ? { model: response.model } : {}),
        ...(response.provider && response.provider !== this.answeredProvider ? { provider: response.provider } : {}),
      };
      if (answered.model || answered.provider) this.context.report.attributes.set(answered);
      if (response.model) this.answeredModel = response.model;
      if (response.provider) this.answeredProvider = response.provider;
    }
    return response;
  }
}
