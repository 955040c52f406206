import { realpathSync } from 'node:fs';
import path from 'node:path';

/** The real MCP servers from npm (devDependencies), started with the node the sandbox sees. */
// The real path: the sandbox binds a read path where it really is (a worktree's node_modules may be a link).
const modules = realpathSync(path.resolve(__dirname, '../../node_modules'));

/** What the sandbox must let a run read for these servers to start: the project's node_modules. */
export const MCP_READ_PATHS = [modules];

export function everythingServer(env: Record<string, string> = {}) {
  return { command: 'node', args: [path.join(modules, '@modelcontextprotocol/server-everything/dist/index.js')], env };
}

export function filesystemServer(allowedDir: string) {
  return { command: 'node', args: [path.join(modules, '@modelcontextprotocol/server-filesystem/dist/index.js'), allowedDir] };
}

/** A server whose tools answer with the `_meta` of their request; its directory must be readable in the sandbox. */
export function metaEchoServer() {
  return { command: 'node', args: [path.join(__dirname, 'meta-echo-mcp-server.js')] };
}
export const META_ECHO_READ_PATHS = [modules, __dirname];
