import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Harness } from '../support/harness';
import { freePort } from '../support/free-port';
import { messagesQuery, statusQuery } from '../../src/common/contract';
import type { ToolResultBlock } from '../../src/common/messages';
import { waitFor } from '../support/wait-for';

/** An MCP server over streamable HTTP (server-everything's own HTTP mode), reached from the worker. */
let h: Harness;
let server: ChildProcess | undefined;
let url = '';
beforeAll(async () => {
  // The server is on loopback: the worker's egress policy refuses it unless the operator allows it (test/security/egress.test.ts).
  process.env.BAREAGENT_WORKER_EGRESS_ALLOW = '127.0.0.1';
  const port = await freePort();
  const entry = path.resolve(__dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
  server = spawn(process.execPath, [entry, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: 'ignore' });
  url = `http://127.0.0.1:${port}/mcp`;
  await waitFor(async () => (await fetch(url, { method: 'GET' }).then(() => true).catch(() => undefined)), 'the MCP HTTP server');
  h = await Harness.create();
  await h.startWorker();
}, 60_000);
afterAll(async () => {
  server?.kill();
  await h.close();
});

test('a streamable-HTTP MCP server gives the model its tools, and a call returns its result', async () => {
  const scenario = `mcp-http-${Math.random()}`;
  h.model.setScenario(scenario, [{ toolCalls: [{ id: 'h1', name: 'mcp__remote__echo', arguments: { message: 'over http' } }] }, { text: 'Done.' }]);
  const handle = await h.start({ prompt: 'Echo', model: scenario, workspace: h.workspace(), stream: false, mcpServers: { remote: { url } } });
  expect(await handle.result()).toMatchObject({ text: 'Done.' });
  const offered = h.model.requestsFor(scenario)[0]?.body.tools.map((t: { function: { name: string } }) => t.function.name);
  expect(offered).toContain('mcp__remote__echo');
  const results = (await handle.query(messagesQuery)).flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === 'tool_result') as ToolResultBlock[];
  expect(results).toEqual([expect.objectContaining({ tool_use_id: 'h1', is_error: false, content: expect.stringContaining('over http') })]);
  expect((await handle.query(statusQuery)).mcpServers).toEqual([expect.objectContaining({ name: 'remote', tools: expect.any(Number) })]);
});
