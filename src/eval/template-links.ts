import { cpSync, lstatSync, readdirSync, readlinkSync, realpathSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { visibleText } from '../common/visible-text';

function inside(root: string, target: string): boolean {
  return target === root || target.startsWith(`${root}${path.sep}`);
}

/** Every entry below a template's real root, by its path in the template, without following links. */
function templateEntries(root: string): Array<{ child: string; entry: Dirent }> {
  const found: Array<{ child: string; entry: Dirent }> = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = rel ? path.join(rel, entry.name) : entry.name;
      found.push({ child, entry });
      if (entry.isDirectory()) walk(child);
    }
  };
  walk('');
  return found;
}

/**
 * Symlinks of an eval template that point outside it (absolute, or `..` past its top), which a
 * trial's copy would turn into a way from the agent's workspace to the operator's files. Named
 * by their path in the template.
 */
export function outsideLinks(template: string): string[] {
  const root = realpathSync(template);
  const found: string[] = [];
  for (const { child, entry } of templateEntries(root)) {
    if (!entry.isSymbolicLink()) continue;
    const target = readlinkSync(path.join(root, child));
    const resolved = path.resolve(path.dirname(path.join(root, child)), target);
    let real = resolved;
    try {
      real = realpathSync(resolved);
    } catch {
      // Dangling: the lexical target is all there is to check.
    }
    if (path.isAbsolute(target) || !inside(root, resolved) || !inside(root, real)) found.push(`${visibleText(child)} -> ${visibleText(target)}`);
  }
  return found;
}

/**
 * What of a template is neither a file, a directory nor a link: a FIFO, a socket, a device. The
 * trial's copy cannot hold one (Node's copy throws half way, leaving a partial workspace) and a
 * read of one blocks; named by their path in the template, so the suite is refused when loaded.
 */
export function specialFiles(template: string): string[] {
  const root = realpathSync(template);
  return templateEntries(root)
    .filter(({ entry }) => !entry.isDirectory() && !entry.isFile() && !entry.isSymbolicLink())
    .map(({ child }) => visibleText(child));
}

/**
 * A trial's fresh copy of the template, its symlinks copied as they are (relative, into the copy):
 * `cpSync`'s default would rewrite each one as an absolute link back into the operator's template.
 */
export function copyTemplate(template: string, workspace: string): void {
  if (!lstatSync(template).isDirectory()) throw new Error(`${template} is not a directory`);
  cpSync(template, workspace, { recursive: true, verbatimSymlinks: true });
}
