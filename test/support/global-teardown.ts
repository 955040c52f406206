import type { DevServer } from '../../src/server/dev-server';

export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as Record<string, unknown>).__bareagentServer as DevServer | undefined;
  await server?.stop();
}
