import { WORKSPACE_SETTINGS_TOOL } from '../common/workspace-settings';
import { ApplicationFailure, condition, log, setHandler } from '@temporalio/workflow';
import { PermissionDecisionInput, type PendingPermission, type PermissionDecisionResult } from '../common/wire';
import { describeIssues } from '../common/input';
import { inputDigest } from '../loop/input-digest';
import { sessionRuleFor } from '../loop/session-rules';
import { decidePermissionUpdate, permissionDecisionSignal } from '../common/contract';

export interface HumanAnswer {
  allowed: boolean;
  reason: string;
  timedOut: boolean;
  /** Allowed for the rest of the run under this rule ("allow always"). */
  rule?: string;
}

/**
 * The human channel: pending requests by the runtime's own id (never the tool call's, which a
 * model may repeat), answered by the `permissionDecision` signal or the `decidePermission`
 * update. An answer that carries the digest of another input than the question's is refused.
 * A request nobody answers before its deadline is denied: fail closed.
 */
export class PermissionGate {
  private readonly pending = new Map<string, PendingPermission>();
  private readonly answers = new Map<string, PermissionDecisionInput>();
  private readonly decided = new Set<string>();
  private readonly digests = new Map<string, string>();

  constructor() {
    setHandler(permissionDecisionSignal, (raw) => {
      const problem = this.problemWith(raw);
      if (problem) {
        log.warn(`permissionDecision signal ignored: ${problem}`);
        return;
      }
      this.record(raw);
    });
    setHandler(decidePermissionUpdate, (raw): PermissionDecisionResult => this.record(raw), {
      validator: (raw) => {
        const problem = this.problemWith(raw);
        // Non-retryable: sending the same decision again cannot make it valid.
        if (problem) throw ApplicationFailure.create({ type: 'InvalidDecision', message: problem, nonRetryable: true });
      },
    });
  }

  list(): PendingPermission[] {
    return [...this.pending.values()];
  }

  async ask(request: PendingPermission, timeoutMs: number): Promise<HumanAnswer> {
    this.pending.set(request.requestId, request);
    this.digests.set(request.requestId, inputDigest(request.tool, request.input));
    try {
      const answered = await condition(() => this.answers.has(request.requestId), timeoutMs);
      if (!answered) {
        this.decided.add(request.requestId);
        return { allowed: false, reason: 'no answer before the approval timeout', timedOut: true };
      }
      const answer = this.answers.get(request.requestId) as PermissionDecisionInput;
      return {
        allowed: answer.decision !== 'deny',
        reason: answer.reason ?? `${answer.decision} by a human`,
        timedOut: false,
        ...(answer.decision === 'allow_always' && answer.rule ? { rule: answer.rule } : {}),
      };
    } finally {
      this.pending.delete(request.requestId);
      this.answers.delete(request.requestId);
      this.digests.delete(request.requestId);
    }
  }

  private record(raw: unknown): PermissionDecisionResult {
    const parsed = PermissionDecisionInput.parse(raw);
    const input = parsed.decision === 'allow_always' ? { ...parsed, rule: parsed.rule ?? this.derivedRule(parsed.requestId) } : parsed;
    this.answers.set(input.requestId, input);
    this.decided.add(input.requestId);
    return { requestId: input.requestId, decision: input.decision, ...(input.rule ? { rule: input.rule } : {}) };
  }

  private derivedRule(requestId: string): string | undefined {
    const request = this.pending.get(requestId);
    return request ? sessionRuleFor(request.tool, request.input) : undefined;
  }

  private problemWith(raw: unknown): string | undefined {
    const parsed = PermissionDecisionInput.safeParse(raw);
    if (!parsed.success) return `invalid decision: ${describeIssues(parsed.error)}`;
    const { requestId } = parsed.data;
    if (this.decided.has(requestId)) return `permission request ${requestId} was already decided`;
    if (!this.pending.has(requestId)) return `no pending permission request with id ${requestId}`;
    const { inputDigest: shown } = parsed.data;
    if (shown !== undefined && shown !== this.digests.get(requestId)) {
      return `permission request ${requestId} asks about another input than the one shown (inputDigest ${shown} does not match): read the question again`;
    }
    // The run-start question about workspace settings is allowed once: "always" means allow, and derives no rule.
    const settingsQuestion = this.pending.get(requestId)?.tool === WORKSPACE_SETTINGS_TOOL;
    if (parsed.data.decision === 'allow_always' && !parsed.data.rule && !settingsQuestion && !this.derivedRule(requestId)) {
      return `no rule can be derived from request ${requestId} (its argument is blank or ends with "*"): give one in "rule"`;
    }
    return undefined;
  }
}
