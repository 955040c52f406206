/** A command that did not run because the sandbox could not be set up or the run asked for more than the operator allows. */
export class SandboxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
