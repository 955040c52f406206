import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseAgentRunInput, type AgentRunConfig } from '../../src/common/input';
import type { ToolCall } from '../../src/common/messages';
import type { ToolOutcome, ToolRequest } from '../../src/common/tool-outcome';
import { readAhead, type ReadTools } from '../../src/activities/model/read-ahead';
import { toolActivities } from '../../src/activities/tools';
import { readAheadOutcome, readAheadRequest } from '../../src/workflows/read-ahead';
import { initialRunState, type RunState } from '../../src/workflows/run-state';

function config(input: Record<string, unknown> = {}): AgentRunConfig {
  const parsed = parseAgentRunInput({ prompt: 'x', workspace: '/ws', ...input });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.config;
}

const offered = new Set(['read_file', 'glob', 'grep', 'write_file', 'bash']);
const state = (extra: Partial<RunState> = {}): RunState => ({ ...initialRunState('x', 0), ...extra });
const hook = (event: 'PreToolUse' | 'PostToolUse') => ({ event, command: 'true', timeout: 60, source: 'worker' });

describe('what a model call may read ahead', () => {
  test('the offered read tools, the workspace and the deny rules', () => {
    expect(readAheadRequest(config({ permissionRules: { deny: ['read_file(.env)'] } }), state(), offered)).toEqual({ workspace: '/ws', tools: ['read_file', 'glob', 'grep'], mode: 'default', deny: ['read_file(.env)'] });
    expect(readAheadRequest(config(), state(), new Set(['grep', 'bash']))).toEqual({ workspace: '/ws', tools: ['grep'], mode: 'default' });
    expect(readAheadRequest(config(), state(), new Set(['bash']))).toBeUndefined();
  });

  test('nothing with a tool worker or a PreToolUse hook; a PostToolUse hook sees the result either way', () => {
    expect(readAheadRequest(config({ toolTaskQueue: 'tools' }), state(), offered)).toBeUndefined();
    expect(readAheadRequest(config(), state({ hooks: { hooks: [hook('PreToolUse')] } } as Partial<RunState>), offered)).toBeUndefined();
    expect(readAheadRequest(config(), state({ hooks: { hooks: [hook('PostToolUse')] } } as Partial<RunState>), offered)).toMatchObject({ tools: ['read_file', 'glob', 'grep'] });
  });

  test('an MCP tool that takes a built-in name keeps it: that name is not read ahead', () => {
    const mcp = { servers: [{ name: 's', source: 'input', tools: [{ name: 'grep', server: 's', tool: 'grep', description: '', inputSchema: {} }] }] };
    expect(readAheadRequest(config(), state({ mcp } as Partial<RunState>), offered)).toMatchObject({ tools: ['read_file', 'glob'] });
  });

  test('an outcome is taken only for the arguments it was read with', () => {
    const read = { input: { file_path: 'a.txt', offset: 0 }, outcome: { ok: true as const, output: '1: a' } };
    expect(readAheadOutcome(read, { file_path: 'a.txt', offset: 0 })).toEqual(read.outcome);
    expect(readAheadOutcome(read, { file_path: 'b.txt', offset: 0 })).toBeUndefined();
    expect(readAheadOutcome(undefined, { file_path: 'a.txt', offset: 0 })).toBeUndefined();
  });
});

describe('the reads a model call runs', () => {
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'read-ahead-'));
  writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n');
  writeFileSync(path.join(workspace, '.env'), 'TOKEN=x\n');
  const { read_file, glob, grep } = toolActivities;
  const tools: ReadTools = { read_file, glob, grep };
  const request = { workspace, tools: ['read_file', 'glob', 'grep'], mode: 'default' as const, deny: ['read_file(.env)'] };
  const call = (id: string, name: string, input: unknown, extra: Partial<ToolCall> = {}): ToolCall => ({ id, name, input, ...extra });

  test('every call of the reply, in order, with the arguments the workflow checks', async () => {
    const read = await readAhead([call('1', 'read_file', { file_path: 'a.txt' }), call('2', 'glob', { pattern: '*.txt' })], request, tools, 100_000);
    expect(read).toEqual([
      { input: { file_path: 'a.txt', offset: 0 }, outcome: { ok: true, output: expect.stringContaining('1: alpha') } },
      { input: { pattern: '*.txt', path: '.' }, outcome: { ok: true, output: expect.stringContaining('a.txt') } },
    ]);
  });

  test('none of the reply when one call is not a read, not offered, denied, invalid or unparsed', async () => {
    const ok = call('1', 'read_file', { file_path: 'a.txt' });
    for (const other of [
      call('2', 'write_file', { file_path: 'b.txt', content: 'x' }),
      call('2', 'final_answer', { answer: 'x' }),
      call('2', 'read_file', { file_path: '.env' }),
      call('2', 'read_file', { path: 'a.txt' }),
      call('2', 'read_file', {}, { parseError: 'Unexpected end of JSON input' }),
    ]) {
      expect(await readAhead([ok, other], request, tools, 100_000)).toBeUndefined();
    }
    expect(await readAhead([ok, call('2', 'grep', { pattern: 'a' })], { ...request, tools: ['read_file'] }, tools, 100_000)).toBeUndefined();
    expect(await readAhead([ok], undefined, tools, 100_000)).toBeUndefined();
  });

  test('a read past the room left in the result, or one that throws, is left to the workflow', async () => {
    const two = [call('1', 'read_file', { file_path: 'a.txt' }), call('2', 'read_file', { file_path: 'a.txt' })];
    const one = JSON.stringify((await readAhead(two.slice(0, 1), request, tools, 100_000))![0]).length;
    expect((await readAhead(two, request, tools, one + 1))?.map((r) => r !== null)).toEqual([true, false]);
    const throwing: ReadTools = { ...tools, read_file: (_: ToolRequest): Promise<ToolOutcome> => Promise.reject(new Error('worker went away')) };
    expect(await readAhead(two, request, throwing, 100_000)).toEqual([null, null]);
  });
});
