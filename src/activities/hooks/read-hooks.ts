import { readFileSync } from 'node:fs';
import { describeIssues } from '../../common/input';
import { HooksSettings, type HookEvent, type HooksConfig, type HookSpec } from '../../common/hooks';
import { resolveInWorkspace, workspaceRoot } from '../tools/workspace';

export const WORKSPACE_SETTINGS = '.bareagent/settings.json';

/**
 * At run start: the hooks of the worker (BAREAGENT_HOOKS_FILE) first, then the workspace's
 * `.bareagent/settings.json` (a symlink out of the workspace is refused like for read_file). A file
 * that does not parse is reported and its hooks left out; the run goes on with the others.
 */
export function createReadHooks(workerFile: string | undefined) {
  return async function readHooks(request: { workspace?: string }): Promise<HooksConfig> {
    const hooks: HookSpec[] = [];
    const errors: string[] = [];
    const take = (source: string, read: () => string) => {
      let text: string;
      try {
        text = read();
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || source === 'worker') errors.push(`${source}: ${(err as Error).message}`);
        return;
      }
      const parsed = parseSettings(text);
      if (typeof parsed === 'string') errors.push(`${source}: ${parsed}`);
      else hooks.push(...flatten(parsed, source));
    };
    if (workerFile) take('worker', () => readFileSync(workerFile, 'utf8'));
    take(WORKSPACE_SETTINGS, () => readFileSync(resolveInWorkspace(workspaceRoot(request.workspace), WORKSPACE_SETTINGS), 'utf8'));
    return { hooks, ...(errors.length ? { errors } : {}) };
  };
}

function parseSettings(text: string): HooksSettings | string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return `not JSON: ${(err as Error).message}`;
  }
  const parsed = HooksSettings.safeParse(json);
  return parsed.success ? parsed.data : describeIssues(parsed.error);
}

function flatten(settings: HooksSettings, source: string): HookSpec[] {
  return Object.entries(settings.hooks).flatMap(([event, groups]) =>
    (groups ?? []).flatMap((group) =>
      group.hooks.map((hook) => ({ event: event as HookEvent, ...(group.matcher ? { matcher: group.matcher } : {}), command: hook.command, timeout: hook.timeout, source })),
    ),
  );
}
