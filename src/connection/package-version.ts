import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The version in the project's package.json (`bareagent --version`, the doctor's first row). */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? 'unknown';
}
