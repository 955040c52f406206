export { agentRun } from './agent-run';
export { backgroundJob } from './background-job';
