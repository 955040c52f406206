/** Custom search attributes: registered by the embedded server, the compose setup and the worker. */
export const SEARCH_ATTRIBUTES = {
  BareAgentStatus: 'Keyword',
  BareAgentWaitingForHuman: 'Bool',
  BareAgentIterations: 'Int',
  BareAgentModel: 'Keyword',
  BareAgentProvider: 'Keyword',
  BareAgentForkedFrom: 'Keyword',
} as const;
export type SearchAttributeName = keyof typeof SEARCH_ATTRIBUTES;
