import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from "node:fs";

/** The most bytes of a `gitdir:` or `commondir` file that are read. */
const POINTER_BYTES = 4096;

/** The start of a small regular file, read without following a symlink nor blocking on a FIFO. */
export function readPointer(path: string, maxBytes: number = POINTER_BYTES): string | undefined {
  let fd: number;
  try {
    // No exception for the common case, a pointer that is not there (a `commondir`).
    if (lstatSync(path, { throwIfNoEntry: false }) === undefined) return undefined;
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return undefined;
    // No bigger than the file: a config's bound is far above what most hold.
    const bytes = new Uint8Array(Math.min(stat.size, maxBytes));
    const read = bytes.length === 0 ? 0 : readSync(fd, bytes, 0, bytes.length, 0);
    return new TextDecoder().decode(bytes.subarray(0, read));
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
