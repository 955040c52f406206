import { temporalProfile } from './temporal-profile';

/** Names and defaults of the public contract (docs/configuration.md). */
export const DEFAULT_TASK_QUEUE = 'bareagent';
export const DEFAULT_ADDRESS = '127.0.0.1:7233';
export const DEFAULT_NAMESPACE = 'default';
export const DEFAULT_UI_PORT = 8233;
export const WORKFLOW_TYPE = 'agentRun';

export interface ConnectionConfig {
  address: string;
  namespace: string;
  taskQueue: string;
}

/** Address and namespace from the `temporal` CLI's profile and TEMPORAL_* variables (src/common/temporal-profile.ts). */
export function connectionFromEnv(env: NodeJS.ProcessEnv = process.env): ConnectionConfig {
  const profile = temporalProfile(env);
  return {
    address: profile.address || DEFAULT_ADDRESS,
    namespace: profile.namespace || DEFAULT_NAMESPACE,
    taskQueue: env.BAREAGENT_TASK_QUEUE || DEFAULT_TASK_QUEUE,
  };
}

export function uiPortFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  return Number(env.BAREAGENT_UI_PORT || DEFAULT_UI_PORT);
}

export function runUiLink(uiPort: number, namespace: string, workflowId: string): string {
  return `http://127.0.0.1:${uiPort}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}
