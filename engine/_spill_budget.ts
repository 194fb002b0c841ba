import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * How often, at most, the other files of the private directory are measured
 * again (a walk of a large scratch folder is not free).
 */
const MEASURE_EVERY_MS = 1000;

/** A spill file as the budget sees it. */
export interface BudgetedSpill {
  /** Its path. */
  readonly path: string;
  /** Bytes it holds on disk. */
  readonly size: number;
  /** True once the command that writes it has settled: it may be evicted. */
  readonly settled: boolean;
  /** Deletes the file because the budget needs its room; `reason` is what its readers are told. */
  evict(reason: string): void;
}

/**
 * The disk budget of one executor's private directory: its spill files plus
 * whatever else lies there (the sandbox's scratch `TMPDIR`). A spill file
 * asks before each write; past the budget the oldest spill files of settled
 * commands are evicted first, a running command's never, and when that is not
 * enough the write gets less room than it asked for.
 */
export class SpillBudget {
  /** The budget in bytes. */
  readonly maxBytes: number;
  readonly #dir: () => string | null;
  /** Tracked spill files, oldest first. */
  readonly #files = new Set<BudgetedSpill>();
  #spillBytes = 0;
  #otherBytes = 0;
  #measuredAt = -Infinity;

  /** `dir` answers the private directory once it exists, else null. */
  constructor(maxBytes: number, dir: () => string | null) {
    this.maxBytes = maxBytes;
    this.#dir = dir;
  }

  /** Bytes in use as last counted: spill files exactly, other files as last measured. */
  get usedBytes(): number {
    return this.#spillBytes + this.#otherBytes;
  }

  /** Starts counting a new, empty spill file. */
  track(file: BudgetedSpill): void {
    this.#files.add(file);
  }

  /** Stops counting a spill file whose `bytes` are gone (deleted, or never written). */
  forget(file: BudgetedSpill, bytes: number): void {
    if (this.#files.delete(file)) this.#spillBytes -= bytes;
  }

  /**
   * Grants `file` room for up to `bytes` more bytes, evicting the oldest
   * settled spill files when that makes room; returns how many it may write.
   */
  reserve(file: BudgetedSpill, bytes: number): number {
    if (Date.now() - this.#measuredAt >= MEASURE_EVERY_MS) this.#measureOthers();
    for (const oldest of this.#files) {
      if (this.#room() >= bytes) break;
      if (oldest === file || !oldest.settled) continue;
      const size = oldest.size;
      oldest.evict(`deleted to keep spill files within the spill budget of ${this.maxBytes} bytes`);
      this.forget(oldest, size);
    }
    const granted = Math.max(0, Math.min(bytes, this.#room()));
    this.#spillBytes += granted;
    return granted;
  }

  #room(): number {
    return this.maxBytes - this.#spillBytes - this.#otherBytes;
  }

  /** Sums the sizes of the files in the private directory that are not tracked spill files. */
  #measureOthers(): void {
    this.#measuredAt = Date.now();
    const dir = this.#dir();
    if (dir === null) return;
    const spills = new Set<string>();
    for (const file of this.#files) spills.add(file.path);
    this.#otherBytes = sizeBeneath(dir, spills);
  }
}

/** Bytes of the regular files beneath `dir` (symlinks not followed), except those in `skip`. */
function sizeBeneath(dir: string, skip: ReadonlySet<string>): number {
  let total = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0; // Gone, or not readable: a command's scratch may hold anything.
  }
  for (const name of names) {
    const path = join(dir, name);
    if (skip.has(path)) continue;
    try {
      const stat = lstatSync(path);
      if (stat.isDirectory()) total += sizeBeneath(path, skip);
      else if (stat.isFile()) total += stat.size;
    } catch {
      // Removed while we looked.
    }
  }
  return total;
}
