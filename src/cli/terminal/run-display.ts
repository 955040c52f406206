import type { RunEvent } from '../../common/events';

/** How `run`, `start --follow` and `follow` show a run while it works. */
export interface RunDisplay {
  /** One event of the run's stream. */
  event(event: RunEvent): Promise<void>;
  /** A line of the CLI's own (a warning, how to answer), shown above anything live. */
  note(line: string): void;
  /** A warning of the CLI's own: above the live region on a terminal, on stderr otherwise. */
  warn(line: string): void;
  /** Around a question asked on the terminal: nothing redraws while the user types. */
  pause(): void;
  resume(): void;
  /** The run's stream ended: what it said stays, the live parts go. */
  close(): Promise<void>;
  /** Whether the final answer has been shown (else the CLI prints the run's result). */
  readonly answerShown: boolean;
}
