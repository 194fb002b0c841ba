import { closeSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

/**
 * A spill file: created exclusively with mode 0600 and a random name, it
 * receives raw bytes up to a cap. A write error closes and deletes it and
 * drops the path, so nobody is pointed at a broken file.
 */
export class SpillFile {
  #path: string | null;
  #fd: number | null;
  #room: number;
  #capped = false;

  private constructor(path: string, fd: number, limit: number) {
    this.#path = path;
    this.#fd = fd;
    this.#room = limit;
  }

  /** Creates a spill file in `dir`, or returns null when it cannot be created. */
  static create(dir: string, limit: number): SpillFile | null {
    const path = join(dir, `${crypto.randomUUID()}.out`);
    try {
      return new SpillFile(path, openSync(path, "wx", 0o600), limit);
    } catch {
      return null;
    }
  }

  /** The file's path; null after a write error. */
  get path(): string | null {
    return this.#path;
  }

  /** True while the file holds every byte written to it. */
  get complete(): boolean {
    return this.#path !== null && !this.#capped;
  }

  /** Appends bytes, stopping at the cap. */
  write(chunk: Uint8Array): void {
    if (this.#fd === null) {
      if (chunk.length > 0) this.#capped = true;
      return;
    }
    let bytes = chunk;
    if (bytes.length > this.#room) {
      bytes = bytes.subarray(0, this.#room);
      this.#capped = true;
    }
    try {
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(this.#fd, bytes, offset);
      this.#room -= bytes.length;
    } catch {
      this.#fail();
      return;
    }
    if (this.#capped) this.close();
  }

  /** Closes the descriptor; the file stays. */
  close(): void {
    if (this.#fd === null) return;
    try {
      closeSync(this.#fd);
    } catch {
      this.#fail();
    }
    this.#fd = null;
  }

  #fail(): void {
    const fd = this.#fd;
    this.#fd = null;
    if (fd !== null) {
      try {
        closeSync(fd);
      } catch {
        // Already unusable; the file is removed below either way.
      }
    }
    if (this.#path !== null) rmSync(this.#path, { force: true });
    this.#path = null;
  }
}
