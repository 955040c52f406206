/** The one export of marked-terminal this CLI uses (the package ships no types). */
declare module 'marked-terminal' {
  export function markedTerminal(options?: Record<string, unknown>, highlightOptions?: Record<string, unknown>): object;
}
