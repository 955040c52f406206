/**
 * The ACP SDK ships as ES modules only; this CommonJS package loads it with require(), which
 * Node 20.19+ allows for modules without top-level await. Types come from its import entry.
 */
export type AcpSdk = typeof import('@agentclientprotocol/sdk', { with: { 'resolution-mode': 'import' } });
export type * as Acp from '@agentclientprotocol/sdk' with { 'resolution-mode': 'import' };

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const acpSdk = (): AcpSdk => require('@agentclientprotocol/sdk') as AcpSdk;
