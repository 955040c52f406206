export { agentRun } from './agent-run';
