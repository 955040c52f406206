/**
 * The syntax gate of a final answer: the files the run changed with write_file or edit_file, in
 * the languages it knows (Python, JavaScript, JSON), and the one shell command that checks they
 * still parse without running them. Pure text work; the command runs in the run's sandbox.
 */
import type { Message } from '../common/messages';
import { sourceLanguageOf } from './source-language';
import { canonicalPath } from './workspace-path';

/** A gate that keeps refusing is not kept for ever: after this many refusals the run stops. */
export const MAX_SYNTAX_REFUSALS = 3;
/** At most this many files a check: a run that rewrote a tree gets its latest ones checked. */
const MAX_FILES = 20;

/** The languages checked without running anything: `python3 -m py_compile`, `node --check`, and a JSON parse. */
type Language = 'python' | 'javascript' | 'json';

function languageOf(path: string): Language | undefined {
  const language = sourceLanguageOf(path);
  return language === 'python' || language === 'javascript' || language === 'json' ? language : undefined;
}

/** The workspace files (canonical paths) of the languages above that a write_file or edit_file of the conversation changed. */
export function changedSourceFiles(messages: readonly Message[]): string[] {
  const applied = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'user' || typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type === 'tool_result' && !block.is_error && typeof block.content === 'string' && /^(Edited |Wrote \d+ bytes to )/.test(block.content)) applied.add(block.tool_use_id);
    }
  }
  const files: string[] = [];
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type !== 'tool_use' || (block.name !== 'write_file' && block.name !== 'edit_file') || !applied.has(block.id)) continue;
      const path = (block.input as { file_path?: unknown } | null)?.file_path;
      if (typeof path !== 'string' || !languageOf(path)) continue;
      const canonical = canonicalPath(path);
      const at = files.indexOf(canonical);
      if (at >= 0) files.splice(at, 1);
      files.push(canonical);
    }
  }
  return files.slice(-MAX_FILES);
}

function quote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

const PYTHON = `import ast, sys
bad = 0
for p in sys.argv[1:]:
    try:
        ast.parse(open(p, 'rb').read(), p)
    except SyntaxError as e:
        print('%s:%s: SyntaxError: %s' % (p, e.lineno, e.msg)); bad = 1
    except OSError:
        pass
sys.exit(bad)`;

const JSON_CHECK = `const fs = require('fs'); for (const p of process.argv.slice(1)) { let t; try { t = fs.readFileSync(p, 'utf8'); } catch { continue; } try { JSON.parse(t); } catch (e) { console.log(p + ': ' + e.message); process.exitCode = 1; } }`;

/**
 * One shell command that exits non-zero, printing where, when one of `files` no longer parses.
 * Nothing is run or written (Python's ast, `node --check`, JSON.parse); a missing interpreter or a
 * deleted file is skipped, not a failure.
 */
export function syntaxCheckCommand(files: readonly string[]): string | undefined {
  const by = (language: Language) => files.filter((file) => languageOf(file) === language).map(quote);
  const [python, javascript, json] = [by('python'), by('javascript'), by('json')];
  const parts = ['bad=0'];
  if (python.length) parts.push(`if command -v python3 >/dev/null 2>&1; then python3 -c ${quote(PYTHON)} ${python.join(' ')} || bad=1; fi`);
  if (javascript.length || json.length) {
    const node = ['if command -v node >/dev/null 2>&1; then'];
    for (const file of javascript) node.push(`if [ -f ${file} ]; then node --check ${file} 2>&1 || bad=1; fi;`);
    if (json.length) node.push(`node -e ${quote(JSON_CHECK)} ${json.join(' ')} || bad=1;`);
    node.push('fi');
    parts.push(node.join(' '));
  }
  if (parts.length === 1) return undefined;
  parts.push('exit $bad');
  return parts.join('\n');
}

/** What the model is told when its final answer is refused for files that no longer parse. */
export function syntaxRefusal(output: string, refusals: number): string {
  return `Not taken: files you changed no longer parse (syntax check ${refusals} of ${MAX_SYNTAX_REFUSALS}); the task is not done yet:\n${output.slice(-4000)}\nFix them with your tools (read the file, then write_file or edit_file), and run the code's own examples or tests before you answer again.`;
}
