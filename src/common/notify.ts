import { z } from 'zod';

/** The run's own notification target (`notify` in the input); the worker may add its own. */
export const NotifyInput = z.strictObject({
  webhook: z
    .string()
    .url({ message: 'must be an http(s) URL' })
    .refine((url) => /^https?:\/\//i.test(url), { message: 'must be an http(s) URL' }),
});
export type NotifyInput = z.infer<typeof NotifyInput>;

/** What a webhook receives when a run starts waiting for a human. At least once: dedupe by `workflowId` + `requestId`. */
export interface HumanNeeded {
  type: 'permission_request';
  workflowId: string;
  /** The runtime's own id for the question (never reused); `toolCallId` is the model's. */
  requestId: string;
  toolCallId: string;
  tool: string;
  /**
   * A summary of the input, cut at 500 characters; a cut one ends by saying so and how much is
   * left out (`bareagent approve` shows the whole input before it answers).
   */
  inputSummary: string;
  /** The summary leaves part of the input out: approve only after reading it whole. */
  inputSummaryCut: boolean;
  /** `inputDigest(tool, input)`: the commands below carry it, so they answer this input only. */
  inputDigest: string;
  requestedAt: string;
  deadline: string;
  commands: { approve: string; approveAlways: string; deny: string; signal: string };
  /** The run's page in the approvers' page, when the worker's operator set BAREAGENT_UI_URL. */
  page?: string;
}

export interface NotifyRequest {
  /** The run's webhook, if it named one. */
  webhook?: string;
  payload: HumanNeeded;
}

export interface NotifyResult {
  /** Where it was delivered: `run webhook (host)`, `worker webhook (host)`; empty when none is configured. */
  delivered: string[];
}
