import { cpSync, lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { visibleText } from '../common/visible-text';

function inside(root: string, target: string): boolean {
  return target === root || target.startsWith(`${root}${path.sep}`);
}

/**
 * Symlinks of an eval template that point outside it (absolute, or `..` past its top), which a
 * trial's copy would turn into a way from the agent's workspace to the operator's files. Named
 * by their path in the template.
 */
export function outsideLinks(template: string): string[] {
  const root = realpathSync(template);
  const found: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = rel ? path.join(rel, entry.name) : entry.name;
      if (entry.isDirectory()) walk(child);
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
  };
  walk('');
  return found;
}

/**
 * What of a template is neither a file, a directory nor a link: a FIFO, a socket, a device. The
 * trial's copy cannot hold one (Node's copy throws half way, leaving a partial workspace) and a
 * read of one blocks; named by their path in the template, so the suite is refused when loaded.
 */
export function specialFiles(template: string): string[] {
  const root = realpathSync(template);
  const found: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = rel ? path.join(rel, entry.name) : entry.name;
      if (entry.isDirectory()) walk(child);
      else if (!entry.isFile() && !entry.isSymbolicLink()) found.push(visibleText(child));
    }
  };
  walk('');
  return found;
}

/**
 * A trial's fresh copy of the template, its symlinks copied as they are (relative, into the copy):
 * `cpSync`'s default would rewrite each one as an absolute link back into the operator's template.
 */
export function copyTemplate(template: string, workspace: string): void {
  if (!lstatSync(template).isDirectory()) throw new Error(`${template} is not a directory`);
  cpSync(template, workspace, { recursive: true, verbatimSymlinks: true });
}
