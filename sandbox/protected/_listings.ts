import { basename, dirname } from "node:path";
import { type DirectoryEntry, type FolderState, folderState, runtime } from "../../runtime/mod.ts";
import type { FolderWatch } from "./_folder_watch.ts";

/**
 * How far the kernel's file timestamps may lag its clock: one tick at the
 * lowest HZ, 100.
 */
export const CLOCK_TICK_MS = 10;

/**
 * How long a folder's (or a file's) times must have stood still before its
 * listing (its content, its parse) is kept: Deno gives the change time in
 * whole seconds, and the kernel stamps both times from a clock that may lag
 * a tick, so a change made in the same second (or tick) as the last one
 * could leave them as they were.
 */
export const SETTLED_MS: number = 1000 + CLOCK_TICK_MS;

/**
 * At most this many folders' listings are kept (four roots walked to their
 * entry bound, one folder an entry at worst); past it, all are dropped.
 */
const MAX_KEPT = 80_000;

/** A folder's listing, with the names of its entries. */
export interface Listing {
  /** Its entries, as the runtime lists them. */
  readonly entries: readonly DirectoryEntry[];
  /** The names of its entries. */
  readonly names: ReadonlySet<string>;
}

interface Kept extends Listing, FolderState {
  /** The watch's tick when the folder was last read or confirmed unchanged (0: no watch). */
  verifiedAt: number;
}

/**
 * The listings of the folders the protected-path walks read, kept from walk
 * to walk (the launch's, its sweeps', the next call's) while a folder has
 * not changed: the same inode with the same modification and change times.
 * Creating, removing or renaming an entry in a folder sets both; setting
 * the modification time back sets the change time, which no one can set.
 * So a name planted anywhere shows in its folder's times, and only the
 * folders that changed are listed again: a walk of an unchanged tree costs
 * an `lstat` a folder, not a listing.
 *
 * This relies on the kernel stamping the times (a local file system; FAT's
 * two-second times and a network file system's server clock are not
 * trusted more than they are elsewhere, see `engine/_listing.ts`).
 *
 * With a `FolderWatch`, a pass does not even `lstat` a folder the watch
 * vouches for (watched since before its listing was read or confirmed, no
 * event since); every other folder is looked at as above.
 */
export class FolderListings {
  readonly #kept = new Map<string, Kept>();
  readonly #read: (dir: string) => DirectoryEntry[];
  readonly #watch: FolderWatch | undefined;
  #reads = 0;
  #looks = 0;
  /** The listings looked at during the pass under way (see {@linkcode pass}), or none. */
  #pass: Map<string, Listing | undefined> | undefined;
  /** The folders of the pass under way whose listing the watch vouches for (see {@linkcode vouched}). */
  #vouched: Set<string> | undefined;

  /**
   * `read` lists a folder (by default the runtime's `readDirectory`);
   * `watch`, when given, tells which folders a pass need not look at.
   */
  constructor(
    read: (dir: string) => DirectoryEntry[] = (dir) => runtime.readDirectory(dir),
    watch?: FolderWatch,
  ) {
    this.#read = read;
    this.#watch = watch;
  }

  /**
   * Why the last pass looked at folders a watch could have vouched for (see
   * `FolderWatch.fallback`); undefined with no watch, or when it needed not.
   */
  get watchFallback(): string | undefined {
    return this.#watch?.fallback;
  }

  /** The bound the folder watch met, in words (see `FolderWatch.bound`), if it did. */
  get watchBound(): string | undefined {
    return this.#watch?.bound;
  }

  /** Stops the watch, if any: later passes look at every folder. */
  close(): void {
    this.#watch?.close();
  }

  /**
   * A tick of the folder watch, for {@linkcode unchangedSince}: what is
   * looked at after it is newer than it. 0 without a watch.
   */
  tick(): number {
    return this.#watch?.now() ?? 0;
  }

  /**
   * True when, in the pass under way, the watch vouches that no entry of the
   * folder `dir` was made, removed, renamed, nor had its attributes changed
   * since `tick` (see `FolderWatch.trusted`): the folder was watched before
   * it, no event about it was read since, and the mount table is as it was.
   * Always false outside a pass, without a watch, for a root.
   */
  unchangedSince(dir: string, tick: number): boolean {
    return this.#pass !== undefined && tick > 0 && this.#watch?.trusted(dir, tick) === true;
  }

  /**
   * True when, in the pass under way, `dir`'s listing was looked at and
   * the watch vouches for it: the folder was watched before its listing was
   * read or confirmed, so whatever changes in it after makes an event (and
   * moves {@linkcode generation}). Always false for a root, outside a pass,
   * without a watch.
   */
  vouched(dir: string): boolean {
    return this.#vouched?.has(dir) === true;
  }

  /**
   * In a pass, with a watch that looks at no folder by `lstat` for want of
   * watches (see `FolderWatch.fallback`): its count of events read and
   * watches dropped (see `FolderWatch.generation`). While it is the same,
   * a listing that {@linkcode vouched} gave is as it was. Undefined
   * otherwise.
   */
  generation(): number | undefined {
    const watch = this.#watch;
    if (this.#pass === undefined || watch === undefined || watch.fallback !== undefined) {
      return undefined;
    }
    return watch.generation;
  }

  /** True when `listing` is the listing of `dir` kept from pass to pass (its times unchanged since). */
  keeps(dir: string, listing: Listing): boolean {
    return this.#kept.get(dir) === listing;
  }

  /** How many folders were looked at (`lstat`) so far: a folder the watch vouched for is not. */
  get looks(): number {
    return this.#looks;
  }

  /** How many folders were read so far (a listing reused is not counted). */
  get reads(): number {
    return this.#reads;
  }

  /**
   * The listing of the folder `dir`, read anew unless it is unchanged since
   * it was last read; undefined when `dir` is no longer a folder (gone, or
   * replaced by a symlink, which the walk never enters). Throws when it
   * cannot be read.
   */
  listing(dir: string): Listing | undefined {
    const pass = this.#pass;
    if (pass === undefined) return this.#current(dir);
    if (pass.has(dir)) return pass.get(dir);
    const listing = this.#current(dir);
    pass.set(dir, listing);
    return listing;
  }

  /**
   * Runs `walk` as one pass: a folder looked at during it is looked at once
   * (its `lstat`, and its listing when it changed), however many of its
   * names the pass asks about. A pass is synchronous, so what it tells is
   * one picture of the tree, taken folder by folder as a walk without it
   * takes it; what changes after a folder was looked at shows in the next
   * pass (the sweep, the next launch). A pass inside a pass joins it.
   * `roots` are the writable roots it walks (canonical), for the watch.
   */
  pass<T>(walk: () => T, roots: readonly string[] = []): T {
    if (this.#pass !== undefined) return walk();
    // What changed since the last pass is read before any folder is taken as it was.
    this.#watch?.begin(roots);
    this.#pass = new Map();
    this.#vouched = new Set();
    try {
      return walk();
    } finally {
      this.#pass = undefined;
      this.#vouched = undefined;
    }
  }

  /** The listing of `dir` as it is now (see {@linkcode listing}). */
  #current(dir: string): Listing | undefined {
    const watch = this.#watch;
    let verifiedAt = 0;
    if (watch !== undefined) {
      // Only in a pass: it began by reading every event queued before it.
      const kept = this.#kept.get(dir);
      if (this.#pass !== undefined && kept !== undefined && watch.trusted(dir, kept.verifiedAt)) {
        this.#vouched?.add(dir);
        return kept;
      }
      // The watch goes first: a change after it makes an event, one before shows below.
      watch.watch(dir);
      verifiedAt = watch.now();
    }
    this.#looks++;
    const now = Date.now();
    const stat = folderState(dir);
    if (stat === undefined) {
      this.#kept.delete(dir);
      return undefined;
    }
    const last = this.#kept.get(dir);
    if (
      last !== undefined && last.dev === stat.dev && last.ino === stat.ino &&
      last.mtimeMs === stat.mtimeMs && last.ctimeMs === stat.ctimeMs
    ) {
      last.verifiedAt = verifiedAt;
      this.#vouch(dir, verifiedAt);
      return last;
    }
    this.#kept.delete(dir);
    this.#reads++;
    const entries = this.#read(dir);
    const listing = { entries, names: new Set(entries.map((entry) => entry.name)) };
    // The times are read before the listing: a change made after them sets
    // them anew, provided they were already settled.
    if (now - Math.max(stat.mtimeMs, stat.ctimeMs) > SETTLED_MS) {
      if (this.#kept.size >= MAX_KEPT) this.#kept.clear();
      const { dev, ino, mtimeMs, ctimeMs } = stat;
      this.#kept.set(dir, { ...listing, dev, ino, mtimeMs, ctimeMs, verifiedAt });
    }
    this.#vouch(dir, verifiedAt);
    return listing;
  }

  /** Notes `dir` as vouched for in the pass under way when the watch was on it before `verifiedAt`. */
  #vouch(dir: string, verifiedAt: number): void {
    if (this.#vouched !== undefined && this.#watch?.trusted(dir, verifiedAt) === true) {
      this.#vouched.add(dir);
    }
  }

  /**
   * True when `path`'s folder lists no such entry (its listing read or
   * reused, as {@linkcode listing} does); false when it does, or when the
   * folder cannot be listed. Looking a missing name up so costs no failed
   * system call (Deno builds an exception for each).
   */
  absent(path: string): boolean {
    try {
      return this.listing(dirname(path))?.names.has(basename(path)) === false;
    } catch {
      return false;
    }
  }
}
