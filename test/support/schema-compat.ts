/**
 * What grammar-constrained servers (llama.cpp's json-schema-to-grammar) and OpenAI's strict mode
 * accept in a tool's JSON schema, as a checker: every problem it finds, by path. Deliberately
 * narrower than either: a schema that passes here is accepted by both.
 */
const KEYWORDS = new Set([
  'type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'description', 'title', 'default',
  'anyOf', 'oneOf', 'allOf', '$ref', '$defs', 'definitions',
  'minLength', 'maxLength', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minItems', 'maxItems',
]);
const FORMATS = new Set(['date', 'time', 'date-time', 'uuid', 'email']);

/** Escape classes, lookarounds, backreferences, named groups, Unicode properties, flags: none compiles to a grammar. */
export function patternProblems(pattern: string): string[] {
  const problems: string[] = [];
  if (!pattern.startsWith('^') || !pattern.endsWith('$')) problems.push('not anchored with ^...$ (llama.cpp anchors it anyway: say so)');
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    const next = pattern[i + 1] ?? '';
    if (char === '\\') {
      if (/[wWdDsSbB]/.test(next)) problems.push(`escape class \\${next}`);
      else if (/[1-9k]/.test(next)) problems.push(`backreference \\${next}`);
      else if (/[pP]/.test(next)) problems.push(`Unicode property \\${next}`);
      else if (/[A-Za-z0-9]/.test(next) && !/[nrt]/.test(next)) problems.push(`escape \\${next}`);
      i += 1;
    } else if (char === '(' && next === '?') {
      problems.push(`group (?${pattern[i + 2] ?? ''}: lookarounds, named and non-capturing groups are refused`);
    }
  }
  return problems;
}

export function schemaProblems(schema: unknown, path = '$'): string[] {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return [`${path}: not a schema object`];
  const problems: string[] = [];
  const node = schema as Record<string, unknown>;
  for (const [key, value] of Object.entries(node)) {
    if (!KEYWORDS.has(key)) problems.push(`${path}: keyword "${key}" is not supported`);
    if (key === 'pattern') problems.push(...(typeof value === 'string' ? patternProblems(value).map((p) => `${path}.pattern: ${p}`) : [`${path}.pattern: not a string`]));
    if (key === 'format' && !FORMATS.has(String(value))) problems.push(`${path}: format "${String(value)}" is not supported`);
  }
  if (node.type === 'object' && node.additionalProperties !== false) problems.push(`${path}: an object must say additionalProperties: false`);
  for (const [name, child] of Object.entries((node.properties as Record<string, unknown> | undefined) ?? {})) problems.push(...schemaProblems(child, `${path}.${name}`));
  if (node.items !== undefined) problems.push(...schemaProblems(node.items, `${path}[]`));
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(node[key])) (node[key] as unknown[]).forEach((child, i) => problems.push(...schemaProblems(child, `${path}.${key}[${i}]`)));
  }
  return problems;
}
