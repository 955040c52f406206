import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir, writePrivateFile } from '../connection/private-files';

export interface UiToken {
  token: string;
  /** True when this start made it: the only time it is printed. */
  created: boolean;
  /** Where it is kept; absent when BAREAGENT_UI_TOKEN set it. */
  file?: string;
}

const MIN_LENGTH = 16;

/**
 * The one secret of the page: BAREAGENT_UI_TOKEN, or `ui-token` under BAREAGENT_HOME, made at the
 * first start (32 random bytes) and kept readable by its owner only.
 */
export function loadUiToken(home: string, env: NodeJS.ProcessEnv = process.env): UiToken {
  const fromEnv = env.BAREAGENT_UI_TOKEN;
  if (fromEnv !== undefined && fromEnv !== '') {
    if (fromEnv.length < MIN_LENGTH || /\s/.test(fromEnv)) throw new Error(`BAREAGENT_UI_TOKEN must be at least ${MIN_LENGTH} characters with no spaces`);
    return { token: fromEnv, created: false };
  }
  const file = path.join(home, 'ui-token');
  try {
    const token = readFileSync(file, 'utf8').trim();
    if (token.length >= MIN_LENGTH) {
      // A copy restored from a backup may have lost its mode.
      chmodSync(file, 0o600);
      return { token, created: false, file };
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  ensurePrivateDir(home);
  const token = randomBytes(32).toString('base64url');
  writePrivateFile(file, `${token}\n`);
  return { token, created: true, file };
}
