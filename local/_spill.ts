import { closeSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { BudgetedSpill, SpillBudget } from "./_spill_budget.ts";

/**
 * A spill file: created exclusively with mode 0600 and a random name, it
 * receives raw bytes up to a cap and within the executor's spill budget. A
 * write error closes and deletes it and drops the path, so nobody is pointed
 * at a broken file; so does an eviction by the budget once its command settled.
 */
export class SpillFile implements BudgetedSpill {
  readonly #budget: SpillBudget | undefined;
  #path: string | null;
  #fd: number | null;
  #room: number;
  #capped = false;
  #size = 0;
  #settled = false;
  #error: string | undefined;

  private constructor(path: string, fd: number, limit: number, budget: SpillBudget | undefined) {
    this.#path = path;
    this.#fd = fd;
    this.#room = limit;
    this.#budget = budget;
    budget?.track(this);
  }

  /**
   * Creates a spill file in `dir` that counts against `budget` (when given),
   * or returns null when it cannot be created.
   */
  static create(dir: string, limit: number, budget?: SpillBudget): SpillFile | null {
    const path = join(dir, `${crypto.randomUUID()}.out`);
    try {
      return new SpillFile(path, openSync(path, "wx", 0o600), limit, budget);
    } catch {
      return null;
    }
  }

  /** The file's path; null after a write error, an eviction or a release. */
  get path(): string | null {
    return this.#path;
  }

  /** True while the file holds every byte written to it. */
  get complete(): boolean {
    return this.#path !== null && !this.#capped;
  }

  /** Bytes the file holds, as the budget counts them. */
  get size(): number {
    return this.#size;
  }

  /** True once its command settled. */
  get settled(): boolean {
    return this.#settled;
  }

  /** Why the spill stopped early or is gone, when the budget made it so. */
  get error(): string | undefined {
    return this.#error;
  }

  /** Appends bytes, stopping at the cap or where the budget allows. */
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
    const budget = this.#budget;
    const granted = budget === undefined ? bytes.length : budget.reserve(this, bytes.length);
    this.#size += granted;
    if (granted < bytes.length) {
      bytes = bytes.subarray(0, granted);
      this.#capped = true;
      this.#error = `spill budget of ${budget?.maxBytes} bytes reached`;
    }
    try {
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(this.#fd, bytes, offset);
      this.#room -= bytes.length;
    } catch {
      this.#fail();
      return;
    }
    if (this.#capped) {
      this.close();
      // A file the budget left empty holds nothing worth naming.
      if (this.#size === 0) this.#remove();
    }
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

  /** Closes the file for good: its command settled, so the budget may evict it. */
  settle(): void {
    this.close();
    this.#settled = true;
  }

  /** Deletes the file because the budget needs its room. */
  evict(reason: string): void {
    this.#error = reason;
    this.#remove();
  }

  /** Deletes the file because its owner is done with it. */
  release(): void {
    this.close();
    this.#remove();
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
    this.#remove();
  }

  #remove(): void {
    try {
      if (this.#path !== null) rmSync(this.#path, { force: true });
    } catch {
      // Left for disposal to remove with the directory; nobody is pointed at it any more.
    }
    this.#path = null;
    this.#budget?.forget(this, this.#size);
  }
}
