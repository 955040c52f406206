import type { FileHandle } from 'node:fs/promises';

/** Up to `size` bytes from the start; fewer if the file shrank since it was measured. */
export async function readPrefix(handle: FileHandle, size: number): Promise<Buffer> {
  const buffer = Buffer.alloc(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } = await handle.read(buffer, filled, size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** Replaces the whole content through the handle that was checked, never through the path again. */
export async function replaceContent(handle: FileHandle, content: Buffer): Promise<void> {
  await handle.truncate(0);
  let written = 0;
  while (written < content.length) {
    const { bytesWritten } = await handle.write(content, written, content.length - written, written);
    written += bytesWritten;
  }
}
