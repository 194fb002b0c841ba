/**
 * The reads of the kernel's small files (`/proc`, cgroupfs) that every
 * command's census and cgroups make, into one buffer kept for them all.
 * Node's `readFileSync` allocates 64 KiB afresh for every file whose size
 * reads 0, as all of `/proc` does: a call made about ten such reads, and
 * under Node each fresh buffer's pages were also faulted in again after
 * every spawn (a fork write-protects the host's memory).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { closeSync, openSync, readSync } from "node:fs";

/** What the kept buffer holds: more than any /proc or cgroup file a call reads (a stat line, an environment). */
const KEPT_BYTES = 64 * 1024;

let kept: Uint8Array | undefined;

/**
 * The whole of the file at `path`, decoded as latin1 (a byte a character),
 * as `readFileSync(path, "latin1")` gives it; throws as that does (the
 * error's `code` says why: ENOENT, ESRCH, EACCES). A file larger than the
 * kept buffer is read into a larger one made for that read alone.
 */
export function readKernelFile(path: string): string {
  const fd = openSync(path, "r");
  try {
    kept ??= new Uint8Array(KEPT_BYTES);
    let buffer = kept;
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        const larger = new Uint8Array(buffer.length * 2);
        larger.set(buffer);
        buffer = larger;
      }
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    return Buffer.from(buffer.buffer, buffer.byteOffset, length).toString("latin1");
  } finally {
    closeSync(fd);
  }
}
