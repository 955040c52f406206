import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** `name` as a shell would find it on `searchPath` (a path with a slash is taken as is), or undefined. */
export function findBinary(name: string, searchPath: string | undefined): string | undefined {
  const candidates = name.includes('/') ? [name] : (searchPath ?? '').split(':').filter(Boolean).map((dir) => path.join(dir, name));
  return candidates.find((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
