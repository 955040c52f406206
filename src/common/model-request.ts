import type { ReadAheadRequest } from './read-ahead';
import type { ModelSettings } from './input';
import type { Message } from './messages';
import type { ProviderName } from './providers';

/** The input of the `callModel` activity. Keys never travel here: they stay in the worker's env. */
export interface ModelRequest {
  model?: string;
  /** The adapter that serves the call; absent: the worker's default provider. */
  provider?: ProviderName;
  systemPrompt?: string;
  /**
   * The run's own context (workspace, date, listing), sent at the head of the first user message
   * rather than in the system prompt: the system prompt and the tools then stay the same from run
   * to run, and a model server's prompt cache serves them.
   */
  runContext?: string;
  /** The whole conversation; or, with `transcript`, only the messages after `transcript.from`. */
  messages: Message[];
  /**
   * Set when the worker may already hold the start of the conversation: history then grows by
   * each call's new messages instead of by the whole transcript (linear, not quadratic).
   */
  transcript?: TranscriptRef;
  tools: string[];
  /** Tools of MCP servers, with the JSON schemas their servers gave. */
  mcpTools?: Array<{ name: string; description: string; inputSchema: Record<string, unknown> }>;
  stream: boolean;
  step: number;
  settings?: ModelSettings;
  /** `required`: the provider must reply with a tool call (runs with `finalAnswer: "tool"`). */
  toolChoice?: 'required';
  /** The read-only calls of the reply this call may run itself, when they are all it asks for. */
  readAhead?: ReadAheadRequest;
}

export interface TranscriptRef {
  /** Changes whenever the workflow rewrites its history (compaction, a notification inserted). */
  key: string;
  /** How many messages came before `messages`. */
  from: number;
  /** The whole conversation's length. */
  total: number;
  /**
   * How many of the `from` messages the worker was not sent but predicted from its previous call's
   * reply, and their digest (src/loop/predicted-messages.ts). A worker whose prediction is not
   * exactly these, or that holds none (another worker, a restart, a worker from before this field),
   * finds `from` past what it holds and reads the conversation from the run, as on any miss.
   */
  predicted?: { messages: number; digest: string };
}
