import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { OLD_HOME } from '../connection/home';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../connection/private-files';

/** Old homes the user was told about, one path a line, in the new home: the notice is shown once per old home. */
const TOLD = 'old-home-notices';

/**
 * Runs of an earlier version live in `./.bareagent/temporal.sqlite` of the directory it was started
 * in, where that directory's agents could read them. They are never moved silently (a move while
 * an old server still runs there would lose its last writes): once, the user is told where they are
 * and the command that moves them, to run with no server running. Nothing when the new home has a
 * database of its own already (the move would replace it) or is that old folder itself.
 */
export function oldHomeNotice(home: string, cwd = process.cwd()): string[] {
  const old = path.resolve(cwd, OLD_HOME);
  const told = path.join(home, TOLD);
  if (path.resolve(home) === old || !existsSync(path.join(old, 'temporal.sqlite')) || existsSync(path.join(home, 'temporal.sqlite'))) return [];
  if (existsSync(told) && readFileSync(told, 'utf8').split('\n').includes(old)) return [];
  ensurePrivateDir(home);
  appendFileSync(told, `${old}\n`, { mode: PRIVATE_FILE_MODE });
  return [
    `Runs of an earlier BareAgent are in ${old}/temporal.sqlite, inside this project where its agents can read them; the server's data now lives in ${home}.`,
    `To keep them, with no server running: mv -i ${shellQuote(path.join(old, 'temporal.sqlite'))}* ${shellQuote(home)}/   (shown once)`,
  ];
}

function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./=:@%+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
