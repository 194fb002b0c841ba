import { closeSync, existsSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { messageOf } from "../seam/_message.ts";

/**
 * A short reason for a file system fault, the same on both runtimes:
 * `ENOSPC: no space left on device` (Node says "ENOSPC: no space left on
 * device, write", Deno "No space left on device (os error 28)").
 */
export function faultReason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  let text = messageOf(error).replace(/\s*\(os error \d+\)$/, "");
  if (typeof code !== "string") return text;
  if (text.startsWith(`${code}: `)) text = text.slice(code.length + 2);
  text = text.replace(/, \w+(?: '[^']*')*$/, "");
  return `${code}: ${text.charAt(0).toLowerCase()}${text.slice(1)}`;
}

/**
 * A spill file: created exclusively with mode 0600 and a random name, it
 * receives raw bytes up to a cap. A write error (a full or read-only file
 * system) closes it and keeps what was written as a partial spill, with the
 * reason in `error`.
 */
export class SpillFile {
  readonly #path: string;
  #fd: number | null;
  #room: number;
  #written = 0;
  #capped = false;
  #error: string | null = null;

  private constructor(path: string, fd: number, limit: number) {
    this.#path = path;
    this.#fd = fd;
    this.#room = limit;
  }

  /** Creates a spill file in `dir`, or says why it cannot be created. */
  static create(dir: string, limit: number): SpillFile | { error: string } {
    const path = join(dir, `${crypto.randomUUID()}.out`);
    try {
      return new SpillFile(path, openSync(path, "wx", 0o600), limit);
    } catch (error) {
      return { error: faultReason(error) };
    }
  }

  /** The file's path. */
  get path(): string {
    return this.#path;
  }

  /** Bytes written to the file so far (from stream offset 0). */
  get written(): number {
    return this.#written;
  }

  /** True when writing stopped at the cap (not at a fault). */
  get capped(): boolean {
    return this.#capped;
  }

  /** True while the file holds every byte written to it (and still exists). */
  get complete(): boolean {
    return !this.#capped && this.#error === null;
  }

  /** Why writing stopped early, or null. */
  get error(): string | null {
    return this.#error;
  }

  /** True while the file is still on disk (a command may have removed it). */
  exists(): boolean {
    return existsSync(this.#path);
  }

  /** Appends bytes, stopping at the cap or at the first write error. */
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
      while (offset < bytes.length) {
        const wrote = writeSync(this.#fd, bytes, offset);
        offset += wrote;
        this.#written += wrote;
      }
      this.#room -= bytes.length;
    } catch (error) {
      this.#fail(error);
      return;
    }
    if (this.#capped) this.close();
  }

  /** Closes the descriptor; the file stays. */
  close(): void {
    const fd = this.#fd;
    if (fd === null) return;
    this.#fd = null;
    try {
      closeSync(fd);
    } catch (error) {
      this.#error ??= faultReason(error);
    }
  }

  #fail(error: unknown): void {
    this.#error ??= faultReason(error);
    this.close();
  }
}
