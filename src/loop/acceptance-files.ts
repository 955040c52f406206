import { declaredArgument, toolDescriptor } from '../common/tool-descriptors';
import { canonicalPath } from './workspace-path';

/** More than this many characters of a command are not read for file names: it is the operator's, yet bounded all the same. */
const COMMAND_CHARS = 4096;
const MAX_FILES = 16;
/** A word that names a file: a relative path with an extension (`test.js`, `tests/test_a.py`), no shell syntax in it. */
const FILE_WORD = /^[A-Za-z0-9_][A-Za-z0-9_./-]*\.[A-Za-z0-9]+$/;
const SHELL_SEPARATORS = /[\s;&|()<>]+/;
/** A test by its name: `test.js`, `test_a.py`, `a_test.go`, `a.test.ts`, `a.spec.js`, `check.mjs`, or anything in a `test`, `tests`, `spec` or `__tests__` folder. */
const TEST_NAME = /(?:^|[._-])(?:tests?|spec|check)(?:[._-]|$)/i;
const TEST_FOLDER = /^(?:tests?|spec|__tests__)$/i;

/** Whether a workspace-relative path names a test by its name or folder. */
export function looksLikeTest(file: string): boolean {
  const parts = file.split('/');
  return TEST_NAME.test(parts[parts.length - 1]!) || parts.slice(0, -1).some((part) => TEST_FOLDER.test(part));
}

/**
 * The test files a run's acceptance command names itself (`node test.js` → `test.js`;
 * `pytest tests/test_a.py -q` → `tests/test_a.py`; `npm test` and `python3 -m doctest
 * solution.py` → none: the code a command checks is named too, and is the agent's to change),
 * canonical. The check is the operator's definition of done: the agent may read these files,
 * never change them (the run refuses a file tool's write, a command's sandbox binds them
 * read-only). Only what the command spells out is found: a test it reaches through a script or a
 * runner's configuration stays writable.
 */
export function acceptanceFiles(command: string | undefined): string[] {
  if (!command) return [];
  const files = new Set<string>();
  for (const raw of command.slice(0, COMMAND_CHARS).split(SHELL_SEPARATORS)) {
    const word = raw.replace(/^['"]|['"]$/g, '').replace(/^(?:\.\/)+/, '');
    if (!FILE_WORD.test(word) || word.includes('..')) continue;
    const canonical = canonicalPath(word);
    if (canonical === '.' || canonical.startsWith('/') || !looksLikeTest(canonical)) continue;
    files.add(canonical);
    if (files.size >= MAX_FILES) break;
  }
  return [...files];
}

/** Whether a workspace-relative path is one of `files` (acceptanceFiles' form), in any spelling (`./TEST.js`, as a case-insensitive filesystem reads it). */
export function isAcceptanceFile(files: readonly string[], path: string): boolean {
  const wanted = canonicalPath(path).toLowerCase();
  return files.some((file) => file.toLowerCase() === wanted);
}

/** The refusal the model reads: what the file is, and what to do instead. */
export function acceptanceFileRefusal(path: string, command?: string): string {
  const check = command === undefined ? "this run's acceptance check" : `this run's acceptance check (\`${command.slice(0, 200)}\`)`;
  return `${path} is part of ${check}: it is the operator's and read-only to you. Change the code it checks, not the check`;
}

/** Why a call of a tool that writes a file by its path is refused, when that file is one of `files`; undefined otherwise. */
export function acceptanceWriteRefusal(files: readonly string[], command: string | undefined, tool: string, input: unknown): string | undefined {
  if (files.length === 0) return undefined;
  const descriptor = toolDescriptor(tool);
  if (!descriptor?.pathArgument || descriptor.effect === 'read') return undefined;
  const filePath = declaredArgument(descriptor, 'pathArgument', input);
  return filePath !== undefined && isAcceptanceFile(files, filePath) ? acceptanceFileRefusal(filePath, command) : undefined;
}
