import path from 'node:path';
import { acceptanceFileRefusal } from '../../loop/acceptance-files';
import { existingFilesInside } from '../../sandbox/host-executed-binds';
import { ToolError } from './tool-error';
import { realpathOfDeepestExisting, resolveLexically } from './workspace';

/**
 * The workflow refused writes of the acceptance check's files by the name the model gave; this
 * refuses one that lands on such a file through a link (`ln -s test.js t.js`, then `write_file
 * t.js`). Checked before the write: a link swapped in between by a running job is the gap the
 * docs name.
 */
export function refuseReadOnlyLanding(root: string, requested: string | undefined, readOnlyFiles: readonly string[] | undefined): void {
  if (requested === undefined || !readOnlyFiles?.length) return;
  const guarded = new Set(existingFilesInside(root, readOnlyFiles));
  if (guarded.size === 0) return;
  let landing: string;
  try {
    landing = realpathOfDeepestExisting(resolveLexically(root, requested));
  } catch {
    return; // the tool itself reports a path it cannot resolve
  }
  if (guarded.has(landing)) throw new ToolError(acceptanceFileRefusal(`${requested} (a link to ${path.relative(root, landing)})`));
}
