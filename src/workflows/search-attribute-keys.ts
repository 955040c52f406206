import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributeUpdatePair } from '@temporalio/common';
import { upsertSearchAttributes } from '@temporalio/workflow';

export const searchAttributes = {
  status: defineSearchAttributeKey('BareAgentStatus', SearchAttributeType.KEYWORD),
  waitingForHuman: defineSearchAttributeKey('BareAgentWaitingForHuman', SearchAttributeType.BOOL),
  iterations: defineSearchAttributeKey('BareAgentIterations', SearchAttributeType.INT),
  model: defineSearchAttributeKey('BareAgentModel', SearchAttributeType.KEYWORD),
  /** The provider whose adapter served the run's turns, as the model activity reported it. */
  provider: defineSearchAttributeKey('BareAgentProvider', SearchAttributeType.KEYWORD),
  /** On a fork: the workflow id of the run it was forked from. */
  forkedFrom: defineSearchAttributeKey('BareAgentForkedFrom', SearchAttributeType.KEYWORD),
};

export type RunStatusAttribute = 'running' | 'awaiting_approval' | 'completed' | 'failed';

interface AttributeValues {
  status?: RunStatusAttribute;
  waitingForHuman?: boolean;
  iterations?: number;
  model?: string;
  provider?: string;
  forkedFrom?: string;
}

/** Upserts only what changed: every upsert is a history event. */
export class RunAttributes {
  private readonly current: AttributeValues = {};
  /** Values noted but not upserted yet: they go with the next upsert. */
  private noted: AttributeValues = {};

  /** Keeps a value for the next upsert without making one now. */
  note(values: AttributeValues): void {
    this.noted = { ...this.noted, ...values };
  }

  set(values: AttributeValues): void {
    const pairs: SearchAttributeUpdatePair[] = [];
    const merged = { ...this.noted, ...values };
    this.noted = {};
    for (const [name, value] of Object.entries(merged) as [keyof AttributeValues, never][]) {
      if (value === undefined || this.current[name] === value) continue;
      (this.current as Record<string, unknown>)[name] = value;
      pairs.push({ key: searchAttributes[name], value } as SearchAttributeUpdatePair);
    }
    if (pairs.length) upsertSearchAttributes(pairs);
  }
}
