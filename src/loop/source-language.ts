/**
 * The language of a workspace file, by its extension: the one reading that the syntax gate, the
 * draft turn's code answer and the write tool's dropped-names note each narrow to what they handle.
 */
export type SourceLanguage = 'python' | 'javascript' | 'jsx' | 'typescript' | 'json';

const BY_EXTENSION: Record<string, SourceLanguage> = {
  py: 'python',
  js: 'javascript',
  cjs: 'javascript',
  mjs: 'javascript',
  jsx: 'jsx',
  ts: 'typescript',
  cts: 'typescript',
  mts: 'typescript',
  tsx: 'typescript',
  json: 'json',
};

export function sourceLanguageOf(path: string): SourceLanguage | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? undefined : BY_EXTENSION[name.slice(dot + 1).toLowerCase()];
}
