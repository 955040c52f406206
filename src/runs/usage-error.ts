/** A request refused before anything starts (a bad flag, a suite without tasks, a run that cannot be forked): its message says all, without a stack. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
