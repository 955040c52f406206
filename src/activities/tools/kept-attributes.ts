/**
 * A rename-based write makes a new file: without this, the replaced file's extended attributes
 * (user.*, an ACL's system.posix_acl_*, an SELinux label) would be gone after the agent's edit.
 * They are copied from the file that was checked to the new one, both named through their folder's
 * open descriptor (`/proc/self/fd/N/name`) by calls that do not follow a link at the end
 * (`llistxattr`, `lgetxattr`, `lsetxattr` in `@napi-rs/xattr`, on libuv's pool, off the event loop);
 * the write then checks the name still holds the file it checked. A file holds a few kilobytes of
 * them at most (one block on ext4). A file capability (`security.capability`) is not carried over:
 * the kernel takes it off any file that is written, and an edited program should not keep it.
 */

type Xattr = typeof import('@napi-rs/xattr');

let loaded: Promise<Xattr | undefined> | undefined;

/** The native module, or undefined on a platform it has no build for (the write then drops them). */
function xattr(): Promise<Xattr | undefined> {
  loaded ??= import('@napi-rs/xattr').then(
    (module) => module,
    () => undefined,
  );
  return loaded;
}

export type AttributeCopy = 'copied' | 'none' | 'failed' | 'unsupported';

const NOT_CARRIED = new Set(['security.capability']);

/**
 * Copies every extended attribute of the file `from` to the file `to`. `failed` when one could not
 * be set (`trusted.*` needs root, an SELinux label a policy may refuse): the caller then writes in
 * place, which keeps them all.
 */
export async function copyAttributes(from: string, to: string): Promise<AttributeCopy> {
  const module = await xattr();
  if (!module) return 'unsupported';
  let names: string[];
  try {
    names = (await module.listAttributes(from)).filter((name) => !NOT_CARRIED.has(name));
  } catch {
    return 'unsupported';
  }
  if (names.length === 0) return 'none';
  try {
    for (const name of names) {
      const value = await module.getAttribute(from, name);
      if (value !== null) await module.setAttribute(to, name, value);
    }
    return 'copied';
  } catch {
    return 'failed';
  }
}
