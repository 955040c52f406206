import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { PinnedFile } from '../../common/pinned-files';
import type { PinnedCopy } from '../../sandbox/bwrap-args';
import { verifiedPins } from './pinned-programs';

export interface PinnedCopies {
  copies: PinnedCopy[];
  remove(): Promise<void>;
}

/**
 * The pinned files checked and copied, as checked, into a private folder of the worker's (outside
 * every workspace and not visible in the sandbox), so that the sandbox binds those bytes over the
 * workspace paths: a background job that rewrites a pinned script between the check and the start
 * cannot make the command run its new text. Throws PinnedFileChangedError like checkPins.
 */
export async function pinnedCopies(root: string, pins: readonly PinnedFile[] | undefined): Promise<PinnedCopies> {
  const verified = await verifiedPins(root, pins);
  if (verified.length === 0) return { copies: [], remove: async () => {} };
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bareagent-pinned-'));
  try {
    const copies = await Promise.all(
      verified.map(async ({ path: relative, bytes }, i) => {
        const source = path.join(dir, String(i));
        await writeFile(source, bytes, { mode: 0o500, flag: 'wx' });
        return { source, target: path.join(root, relative) };
      }),
    );
    return { copies, remove: () => rm(dir, { recursive: true, force: true }) };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
