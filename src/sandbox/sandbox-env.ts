import os from 'node:os';
import { SANDBOX_HOME } from './bwrap-args';

/** A fixed PATH: the usual system directories, plus /usr/local/go/bin where the Go tarball installs. */
export const SANDBOX_PATH = '/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Everything a sandboxed command is told about its environment; nothing else of the worker's crosses. */
export function sandboxBaseEnv(worker: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return {
    PATH: SANDBOX_PATH,
    HOME: SANDBOX_HOME,
    LANG: worker.LANG || 'C.UTF-8',
    TERM: 'dumb',
    TZ: worker.TZ || 'UTC',
    USER: userName(),
    TMPDIR: '/tmp',
  };
}

function userName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return 'sandbox';
  }
}
