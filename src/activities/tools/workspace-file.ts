import { close, fchmodSync, fchownSync, fstatSync, ftruncate, read, readSync, write, writeSync, type Stats } from 'node:fs';
import { promisify } from 'node:util';

const closeFd = promisify(close);
const readAt = promisify(read);
const writeAt = promisify(write);
const truncateTo = promisify(ftruncate);

/** Content calls up to this size run on the event loop (microseconds); larger ones on the thread pool. */
const SYNC_IO_BYTES = 64 * 1024;

/**
 * A descriptor the file tools' safe open opened and checked (a regular file, or a folder kept for
 * a rename). Its metadata calls (`fstat`, `fchmod`, `fchown`) and reads and writes of up to 64 KiB
 * are synchronous: each takes microseconds, where a round trip through libuv's thread pool is about
 * 0.3 ms on a 2-core virtual machine. Larger reads and writes, and `close`, go through the thread
 * pool, so that no file holds the event loop for long: the last close of a file that was replaced
 * or deleted meanwhile frees its blocks (6 ms for 10 MB here, 33 ms for 100 MB), and a model can
 * make a file it asks to read that big and delete it.
 */
export class WorkspaceFile {
  private closed = false;

  constructor(readonly fd: number) {}

  async read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }> {
    if (length <= SYNC_IO_BYTES) return { bytesRead: readSync(this.fd, buffer, offset, length, position) };
    const { bytesRead } = await readAt(this.fd, buffer, offset, length, position);
    return { bytesRead };
  }

  async write(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesWritten: number }> {
    if (length <= SYNC_IO_BYTES) return { bytesWritten: writeSync(this.fd, buffer, offset, length, position) };
    const { bytesWritten } = await writeAt(this.fd, buffer, offset, length, position);
    return { bytesWritten };
  }

  truncate(length: number): Promise<void> {
    return truncateTo(this.fd, length);
  }

  async stat(): Promise<Stats> {
    return fstatSync(this.fd);
  }

  async chmod(mode: number): Promise<void> {
    fchmodSync(this.fd, mode);
  }

  async chown(uid: number, gid: number): Promise<void> {
    fchownSync(this.fd, uid, gid);
  }

  /** Closes once; later calls do nothing. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await closeFd(this.fd);
  }

  /**
   * Closes once, through the thread pool, without waiting: for a file that was only read, whose
   * close the caller's result does not depend on. A read's answer then skips the pool's round trip.
   */
  closeSoon(): void {
    if (this.closed) return;
    this.closed = true;
    close(this.fd, () => undefined);
  }
}
