/** A logger for bundling the workflow code: its warnings and errors, none of its progress lines. */
export const warningsOnlyLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};
