import { readFile } from 'node:fs/promises';
import type { HooksConfig, HookSpec } from '../../common/hooks';
import { parseHooks, readSettingsFile, WORKSPACE_SETTINGS } from '../settings/settings-files';
import { workspaceRoot } from '../tools/workspace';

export { WORKSPACE_SETTINGS };

/**
 * For runs that started before workspace settings were a snapshot (new runs read them with
 * readWorkspaceSettings): the worker's hooks (BAREAGENT_HOOKS_FILE) first, then the workspace's
 * `.bareagent/settings.json`, through the safe open. A file that does not parse is reported and its
 * hooks left out; the run goes on with the others.
 */
export function createReadHooks(workerFile: string | undefined) {
  return async function readHooks(request: { workspace?: string }): Promise<HooksConfig> {
    const hooks: HookSpec[] = [];
    const errors: string[] = [];
    if (workerFile) {
      try {
        hooks.push(...parseHooks(await readFile(workerFile, 'utf8'), 'worker'));
      } catch (err) {
        errors.push(`worker: ${(err as Error).message.replace(/^worker: /, '')}`);
      }
    }
    try {
      const read = await readSettingsFile(workspaceRoot(request.workspace), WORKSPACE_SETTINGS);
      if (read) hooks.push(...parseHooks(read.text, WORKSPACE_SETTINGS));
    } catch (err) {
      errors.push((err as Error).message);
    }
    return { hooks, ...(errors.length ? { errors } : {}) };
  };
}
