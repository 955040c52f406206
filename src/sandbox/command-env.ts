const PASSED_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TERM', 'USER', 'SHELL', 'TMPDIR', 'TZ'];

/** With the sandbox off: the worker's secrets stay with the worker, commands see only a small, plain environment. */
export function commandEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of PASSED_ENV) if (process.env[name] !== undefined) env[name] = process.env[name];
  return { ...env, ...extra };
}
