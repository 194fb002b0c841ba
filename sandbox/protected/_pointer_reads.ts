/**
 * The pointers the launch's walk reads (every protected file as a possible
 * `gitdir:` file, every repository's `commondir`), read again only when the
 * file changed: one `lstat` instead of five system calls for each of the
 * 50 `.envrc` files of the bench's tree, a quarter of a warm launch.
 *
 * @module
 */
import { type FileState, fileState } from "../../runtime/mod.ts";
import { SETTLED_MS } from "./_listings.ts";
import { readPointer } from "./_read_pointer.ts";

/** At most this many pointers are kept; past it, all are dropped. */
const MAX_KEPT = 80_000;

interface Kept {
  /** The file's device, inode, times and size when it was read. */
  stamp: string;
  text: string | undefined;
}

/**
 * The start of each pointer file read (see `readPointer`), kept while the
 * file's own state is the same: its inode, modification and change times,
 * and size.
 *
 * Why a text kept is the text now (the soundness argument):
 *
 * 1. Writing to a file sets its modification time, whichever name or handle
 *    it is written through (a folder watch would miss a write through a hard
 *    link in another folder); setting the time back sets the change time,
 *    which no one can set; replacing the file gives another inode; a mode
 *    or owner change (which decides whether it can be read) sets the change
 *    time.
 * 2. The state is taken before the read, and the text is kept only when the
 *    file had stood still for {@linkcode SETTLED_MS} before that (the times
 *    are stamped from a clock that may lag a tick, Deno gives the change
 *    time in whole seconds): any later change then gives other times.
 * 3. The kernel sets the modification time of a file written through a
 *    shared memory map at the first write to a clean page, not at each
 *    write. So a file with another name (a hard link) is read every time: a
 *    confined command cannot make one to a protected file (its read-only
 *    mount refuses a link across mounts) nor open one for writing, so the
 *    only writer that keeps a handle is one that had the file writable at a
 *    protected path, which the sweep moves away.
 *
 * Anything else (not a regular file, a state that cannot be told) is read
 * as `readPointer` reads it, with nothing kept.
 *
 * @example
 * ```ts
 * import { PointerReads } from "./_pointer_reads.ts";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import assert from "node:assert/strict";
 *
 * const dir = mkdtempSync(join(tmpdir(), "pointers-"));
 * writeFileSync(join(dir, ".git"), "gitdir: ../elsewhere\n");
 * const pointers = new PointerReads();
 * assert.equal(pointers.read(join(dir, ".git")), "gitdir: ../elsewhere\n");
 * assert.equal(pointers.read(join(dir, "missing")), undefined);
 * assert.equal(pointers.reads, 1);
 * rmSync(dir, { recursive: true });
 * ```
 */
export class PointerReads {
  readonly #kept = new Map<string, Kept>();
  #reads = 0;
  #looks = 0;

  /** How many pointer files were read so far (one kept is not counted). */
  get reads(): number {
    return this.#reads;
  }

  /** How many states it took itself (`lstat`) so far: one it was handed is not counted. */
  get looks(): number {
    return this.#looks;
  }

  /**
   * The start of the regular file at `path` (never through a symlink), as
   * `readPointer` reads it, or undefined when there is none; read again
   * only when the file changed since it was last read (see the class).
   * `taken` is its state from an `lstat` just made (the walk's look at the
   * path, see `Shape.file`), with the time just before that look: no second
   * `lstat` then (the bench's 50 `.envrc` files, a quarter of a warm launch's).
   */
  read(path: string, taken?: { state: FileState; before: number }): string | undefined {
    const now = taken?.before ?? Date.now();
    let state;
    try {
      if (taken === undefined) this.#looks++;
      state = taken?.state ?? fileState(path);
    } catch {
      this.#kept.delete(path);
      this.#reads++;
      return readPointer(path);
    }
    if (state === undefined) {
      this.#kept.delete(path);
      return undefined;
    }
    const { dev, ino, mtimeMs, ctimeMs, size, nlink } = state;
    const stamp = `${dev}:${ino}:${mtimeMs}:${ctimeMs}:${size}`;
    const kept = this.#kept.get(path);
    if (kept !== undefined && kept.stamp === stamp) return kept.text;
    this.#reads++;
    const text = readPointer(path);
    if (nlink === 1 && Number.isFinite(ino) && now - Math.max(mtimeMs, ctimeMs) > SETTLED_MS) {
      if (this.#kept.size >= MAX_KEPT) this.#kept.clear();
      this.#kept.set(path, { stamp, text });
    } else this.#kept.delete(path);
    return text;
  }
}
