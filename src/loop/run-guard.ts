import { nameWritableGit } from './host-executed';
import { checkPermission } from './permissions';
import { guardSettingsFiles } from './settings-files';

/**
 * A run's guard: the permission check, with writes of settings, instruction and host-executed files
 * asking; with `sandbox.writableGit`, a command's question also says that git's files are writable.
 * The workflow guards every call with it, and a model call that reads ahead checks its reads with it.
 */
export function runGuard(writableGit: boolean): typeof checkPermission {
  const guard: typeof checkPermission = (policy, tool, input) => guardSettingsFiles(policy, tool, input, checkPermission(policy, tool, input));
  return writableGit ? (policy, tool, input) => nameWritableGit(tool, guard(policy, tool, input)) : guard;
}
