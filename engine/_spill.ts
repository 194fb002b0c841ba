import { closeSync, existsSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { messageOf } from "../seam/message.ts";
import type { BudgetedSpill, SpillBudget } from "./_spill_budget.ts";

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
 * This process's soft file size limit (RLIMIT_FSIZE, `ulimit -f`) in bytes,
 * from /proc/self/limits; Infinity when it is unlimited or cannot be read.
 * A write past it sends the writer SIGXFSZ, which kills a Deno host (Node
 * ignores the signal, and the write fails with EFBIG).
 */
export function fileSizeLimit(): number {
  let text: string;
  try {
    text = readFileSync("/proc/self/limits", "utf8");
  } catch {
    return Infinity;
  }
  const soft = /^Max file size +(\d+) /m.exec(text)?.[1];
  return soft === undefined ? Infinity : Number(soft);
}

/**
 * A spill file: created exclusively with mode 0600 and a random name, it
 * receives raw bytes up to a cap and within the executor's spill budget. A
 * write error (a full or read-only file system) closes it and keeps what was
 * written as a partial spill, with the reason in `error`; so does the budget
 * running out, and so does this process's file size limit (read when the
 * file is created), which a Deno host would die of. Once its command settled, the budget may delete it (`evict`),
 * and its owner may (`release`); `removal` then says why it is gone.
 */
export class SpillFile implements BudgetedSpill {
  readonly #path: string;
  readonly #budget: SpillBudget | undefined;
  #fd: number | null;
  #room: number;
  /** What this process's file size limit lets the file hold (see {@linkcode fileSizeLimit}). */
  readonly #sizeLimit = fileSizeLimit();
  #written = 0;
  #capped = false;
  #error: string | null = null;
  #size = 0;
  #settled = false;
  #removal: string | null = null;

  private constructor(path: string, fd: number, limit: number, budget: SpillBudget | undefined) {
    this.#path = path;
    this.#fd = fd;
    this.#room = limit;
    this.#budget = budget;
    budget?.track(this);
  }

  /**
   * Creates a spill file in `dir` that counts against `budget` (when given),
   * or says why it cannot be created.
   */
  static create(
    dir: string,
    limit: number,
    budget?: SpillBudget,
  ): SpillFile | { error: string } {
    const path = join(dir, `${crypto.randomUUID()}.out`);
    try {
      return new SpillFile(path, openSync(path, "wx", 0o600), limit, budget);
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

  /** Why writing stopped early (a fault, the spill budget), or null. */
  get error(): string | null {
    return this.#error;
  }

  /** Why this executor deleted the file (the spill budget, a release), or null. */
  get removal(): string | null {
    return this.#removal;
  }

  /** Bytes the file holds, as the budget counts them. */
  get size(): number {
    return this.#size;
  }

  /** True once its command settled. */
  get settled(): boolean {
    return this.#settled;
  }

  /** True while the file is still on disk (a command may have removed it). */
  exists(): boolean {
    return this.#removal === null && existsSync(this.#path);
  }

  /** Appends bytes, stopping at the cap, at the first write error or where the budget allows. */
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
    if (bytes.length > this.#sizeLimit - this.#written) {
      bytes = bytes.subarray(0, this.#sizeLimit - this.#written);
      this.#capped = true;
      this.#error ??=
        `EFBIG: this process's file size limit (ulimit -f) of ${this.#sizeLimit} bytes reached`;
    }
    const budget = this.#budget;
    const granted = budget === undefined ? bytes.length : budget.reserve(this, bytes.length);
    this.#size += granted;
    if (granted < bytes.length) {
      bytes = bytes.subarray(0, granted);
      this.#capped = true;
      this.#error ??= `spill budget of ${budget?.maxBytes} bytes reached`;
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
    if (this.#capped) {
      this.close();
      // A file the budget left empty holds nothing worth naming.
      if (this.#size === 0 && this.#error !== null) this.#remove(this.#error);
    }
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

  /** Closes the file for good: its command settled, so the budget may evict it. */
  settle(): void {
    this.close();
    this.#settled = true;
  }

  /** Deletes the file because the budget needs its room. */
  evict(reason: string): void {
    this.#remove(reason);
  }

  /** Deletes the file because its owner is done with it. */
  release(): void {
    this.close();
    this.#remove("released by its owner");
  }

  #fail(error: unknown): void {
    this.#error ??= faultReason(error);
    this.close();
  }

  #remove(reason: string): void {
    if (this.#removal !== null) return;
    this.#removal = reason;
    try {
      rmSync(this.#path, { force: true });
    } catch {
      // Left for disposal to remove with the folder; nobody is pointed at it any more.
    }
    this.#budget?.forget(this, this.#size);
  }
}
