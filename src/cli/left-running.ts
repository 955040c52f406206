/** The user left a question with Ctrl-C: the CLI exits 130, the run goes on (the lines printed say how to reach it). */
export class LeftRunning extends Error {
  constructor(readonly workflowId: string) {
    super(`left ${workflowId} running`);
    this.name = new.target.name;
  }
}
