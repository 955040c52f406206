import pc from 'picocolors';

/** Exit code after Ctrl-C (128 + SIGINT), as shells report it. */
export const INTERRUPTED_EXIT = 130;

/** What Ctrl-C while following leaves: the run, and the two commands that reach it again. */
export function interruptNotice(workflowId: string, workerHere: boolean): string {
  const lines = [
    workerHere
      ? `Stopped following ${workflowId}. The run is durable, but its worker ran in this command: it goes on once a worker polls its task queue (npm run worker, or bareagent worker).`
      : `Stopped following ${workflowId}; the run goes on.`,
    `  bareagent follow ${workflowId}    watch it again`,
    `  bareagent cancel ${workflowId}    stop it`,
  ];
  return lines.map((line, i) => (i === 0 ? pc.yellow(line) : line)).join('\n');
}

/**
 * Ctrl-C while a run is followed: `onInterrupt` runs instead of Node's silent exit. Suspended
 * while a question is asked (the prompt has its own Ctrl-C), and removed when following ends.
 */
export function whileFollowing(onInterrupt: () => void): { suspend(): void; resume(): void; dispose(): void } {
  const listener = () => onInterrupt();
  const on = () => process.on('SIGINT', listener);
  const off = () => process.off('SIGINT', listener);
  on();
  return { suspend: off, resume: on, dispose: off };
}
