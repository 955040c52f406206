/**
 * Modules the CLI loads only for the commands that use them. The worker SDK, the activities, the
 * model and MCP clients take over a second of CPU to load: `status`, `approve` or `list` would pay
 * it at every start for nothing. `require` rather than `import()`: the CLI runs its TypeScript
 * through tsx's CommonJS hook, which a dynamic import would bypass.
 */
/* eslint-disable @typescript-eslint/no-require-imports */

/** The worker `run`, `demo` and `eval` start in the CLI's own process when none polls the task queue. */
export const localWorkerModule = () => require('./local-worker') as typeof import('./local-worker');

/** `bareagent worker`. */
export const workerModule = () => require('../worker') as typeof import('../worker');

/** `bareagent ui`: the approvers' page (hono). */
export const uiServerModule = () => require('../ui/ui-server') as typeof import('../ui/ui-server');

/** `bareagent eval --baseline model-alone`: its request goes through the openai client. */
export const modelAloneModule = () => require('../eval/model-alone') as typeof import('../eval/model-alone');
