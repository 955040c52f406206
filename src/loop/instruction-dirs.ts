import type { ToolCall } from '../common/messages';
import { declaredArgument, toolDescriptor } from '../common/tool-descriptors';
import { canonicalPath } from './workspace-path';

/**
 * The workspace directories a round of tool calls touched, and each directory above them, as
 * workspace-relative paths (`src`, `src/parser`); the root itself is never one (its AGENTS.md is
 * read at the start). Paths that leave the workspace give nothing: the tools refuse them anyway.
 */
export function touchedDirectories(calls: readonly ToolCall[], workspace: string | undefined): string[] {
  const dirs = new Set<string>();
  for (const call of calls) {
    const tool = toolDescriptor(call.name);
    const target = tool?.pathArgument ? parentOf(declaredArgument(tool, 'pathArgument', call.input)) : declaredArgument(tool, 'folderArgument', call.input);
    if (typeof target !== 'string') continue;
    const relative = workspaceRelative(target, workspace);
    if (relative === undefined) continue;
    const parts = relative.split('/').filter(Boolean);
    for (let i = 1; i <= parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  return [...dirs];
}

function parentOf(file: unknown): string | undefined {
  if (typeof file !== 'string') return undefined;
  const at = file.lastIndexOf('/');
  return at < 0 ? '.' : file.slice(0, at) || '/';
}

/** `a/./b/../c` → `a/c`; an absolute path only when it lies in the workspace; undefined outside. */
export function workspaceRelative(target: string, workspace: string | undefined): string | undefined {
  let path = target.trim();
  if (path.startsWith('/')) {
    const root = workspace?.replace(/\/+$/, '');
    if (!root || (path !== root && !path.startsWith(`${root}/`))) return undefined;
    path = path.slice(root.length).replace(/^\/+/, '') || '.';
  }
  const canonical = canonicalPath(path);
  if (canonical.startsWith('/') || canonical.startsWith('~') || canonical.split('/').includes('..')) return undefined;
  return canonical === '.' ? '' : canonical;
}
