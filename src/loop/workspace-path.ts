/**
 * The canonical workspace-relative form of a tool's path, so that a rule on `.env` also holds for
 * `./.env`, `sub/../.env` and `.//.env`. Written by hand: src/loop may not import node:path. A
 * path that leaves the workspace (absolute, `~`, or `..` above the root) is returned as given,
 * because the tool refuses it anyway.
 */
export function canonicalPath(path: string): string {
  const trimmed = path.trim();
  if (trimmed.startsWith('/') || trimmed.startsWith('~') || /^[A-Za-z]:[\\/]/.test(trimmed)) return trimmed;
  const parts: string[] = [];
  for (const segment of trimmed.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (parts.length === 0) return trimmed;
      parts.pop();
      continue;
    }
    parts.push(segment);
  }
  return parts.length > 0 ? parts.join('/') : '.';
}

/** A rule's prefix keeps its trailing slash: `src/*` must not match `src2/a`. */
export function canonicalPrefix(prefix: string): string {
  if (prefix.trim() === '') return '';
  const canonical = canonicalPath(prefix);
  if (canonical === '.') return '';
  return /\/\s*$/.test(prefix) && canonical !== '.' ? `${canonical}/` : canonical;
}
