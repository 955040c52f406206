import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * No two files of src/ import each other, directly or around a loop, counting type-only imports
 * too: lint's import-x/no-cycle skips those, yet a type cycle still ties two files' changes together.
 */
const SRC = path.resolve(__dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function resolveLocal(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  return [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => existsSync(candidate));
}

function importGraph(files: string[]): Map<string, string[]> {
  return new Map(
    files.map((file) => {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      const targets = importedFiles.map((ref) => resolveLocal(file, ref.fileName)).filter((t): t is string => t !== undefined);
      return [file, [...new Set(targets)]];
    }),
  );
}

/** Strongly connected components of more than one file (Tarjan), each a cycle to break. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(path.relative(SRC, member));
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

test('no import cycles in src, type-only imports included', () => {
  const graph = importGraph(sourceFiles(SRC));
  expect(graph.size).toBeGreaterThan(100);
  expect(cycles(graph)).toEqual([]);
});

test('no two top-level folders of src import each other, directly or around a loop', () => {
  const folderOf = (file: string): string => path.join(SRC, path.relative(SRC, file).split(path.sep)[0]!);
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of importGraph(sourceFiles(SRC))) {
    if (path.dirname(file) === SRC) continue; // the entry points import anything
    const from = folders.get(folderOf(file)) ?? new Set<string>();
    for (const target of targets) if (folderOf(target) !== folderOf(file)) from.add(folderOf(target));
    folders.set(folderOf(file), from);
  }
  expect(folders.size).toBeGreaterThan(15);
  expect(cycles(new Map([...folders].map(([folder, targets]) => [folder, [...targets]])))).toEqual([]);
});

test('the cycle check sees a cycle made only of type imports', () => {
  const a = path.join(SRC, 'probe-a.ts');
  const b = path.join(SRC, 'probe-b.ts');
  const graph = new Map([
    [a, [b]],
    [b, [a]],
  ]);
  expect(cycles(graph)).toEqual([['probe-a.ts', 'probe-b.ts']]);
  const { importedFiles } = ts.preProcessFile("import type { X } from './probe-b';\nexport type Y = import('./probe-c').Z;\n", true, true);
  expect(importedFiles.map((f) => f.fileName)).toEqual(['./probe-b', './probe-c']);
});
