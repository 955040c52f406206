import { toolDefinitions } from '../../src/activities/model/tool-definitions';
import { TOOL_NAMES, toolSchemas } from '../../src/common/tool-schemas';
import { patternProblems, schemaProblems } from '../support/schema-compat';

test("every tool's JSON schema, as sent to the provider, uses only what llama.cpp's grammar and OpenAI's strict mode accept", () => {
  const definitions = toolDefinitions(TOOL_NAMES);
  expect(definitions.map((d) => d.name)).toEqual(TOOL_NAMES);
  const problems = definitions.flatMap((d) => schemaProblems(d.parameters, d.name));
  expect(problems).toEqual([]);
});

test('the checker refuses what those servers refuse', () => {
  expect(patternProblems('^[\\w.-]{1,64}$')).toEqual(['escape class \\w']);
  expect(patternProblems('^\\d+\\s$')).toEqual(['escape class \\d', 'escape class \\s']);
  expect(patternProblems('^(?=a)b$')[0]).toContain('lookarounds');
  expect(patternProblems('^(a)\\1$')).toEqual(['backreference \\1']);
  expect(patternProblems('^\\p{L}+$')).toEqual(['Unicode property \\p']);
  expect(patternProblems('^[A-Za-z0-9_.-]{1,64}$')).toEqual([]);
  expect(schemaProblems({ type: 'object', properties: { a: { type: 'string', format: 'uri-reference' } }, additionalProperties: false })).toEqual([
    '$.a: format "uri-reference" is not supported',
  ]);
  expect(schemaProblems({ type: 'object', properties: {}, additionalProperties: false, patternProperties: {} })).toEqual(['$: keyword "patternProperties" is not supported']);
});

test('background_run.task_id still takes exactly letters, digits, ".", "_" and "-"', () => {
  const id = (task_id: string) => toolSchemas.background_run.safeParse({ command: 'true', task_id }).success;
  expect(['job-1', 'a.b_c', 'X'.repeat(64)].every(id)).toBe(true);
  expect(['', 'a b', 'é', 'x/y', 'X'.repeat(65)].some(id)).toBe(false);
});
