import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { isBeneath } from "../../engine/mod.ts";
import { messageOf } from "../../seam/message.ts";
import { pathState } from "../../runtime/mod.ts";
import {
  ENTRY_CHANGES,
  type FolderEvent,
  type FolderEvents,
  IN_ATTRIB,
  IN_ISDIR,
  openInotify,
  UNCLOSED_EVENTS,
  WATCH_LOST,
} from "./_inotify.ts";

/**
 * At most this many folders are watched per executor (a tree past it has
 * its other folders looked at by `lstat`), and never more than a quarter
 * of the user's inotify watches (`fs.inotify.max_user_watches`).
 */
export const MAX_WATCHED_FOLDERS = 16_384;

/** The file systems whose changes all go through this kernel (so inotify sees them all). */
const LOCAL_FILE_SYSTEMS: ReadonlySet<string> = new Set([
  "ext2",
  "ext3",
  "ext4",
  "xfs",
  "btrfs",
  "tmpfs",
  "overlay",
  "f2fs",
]);

/**
 * More folders made, removed or moved than this between two passes drop
 * every watch at once: each such event drops the watches below its path by
 * a scan of them all, and a command that makes thousands of folders (an
 * `npm install`) would otherwise cost the pass that many scans.
 */
export const MAX_FOLDER_CHANGES = 256;

interface Watched {
  wd: number;
  /** The tick at which the watch was added. */
  addedAt: number;
}

/**
 * Which folders of the writable roots are known unchanged without looking
 * at them: each listed folder gets an inotify watch, and a folder whose
 * watch was in place before its listing was last read (or confirmed by
 * `lstat`), and that no event touched since, is taken as it was. The steps
 * of each pass (`begin`) are:
 *
 * 1. Every event queued since the last pass is read. An entry made,
 *    removed or renamed in a folder marks that folder changed; if the entry
 *    is a directory (or a watched path), every watch at and below its path
 *    is dropped, since what is there may be another inode now; a watched
 *    folder moved, removed or unmounted drops its own and those below it.
 *    A full queue (the kernel dropped events) or a failed read drops them all.
 * 2. A changed mount table drops them all too (a mount makes no event).
 * 3. A root whose inode is not the one its watch was added on drops them
 *    all below it (its parent is not watched).
 * 4. More than {@linkcode MAX_FOLDER_CHANGES} folders made, removed or moved
 *    since the last pass drop them all, as a full queue does.
 *
 * A folder is watched only when its parent is (or it is a root on a local
 * file system with nothing mounted below it), so that whatever replaces it
 * makes an event in a watched parent. Any doubt leaves a folder to the
 * `lstat` of `FolderListings`, as when there is no watch: under Node, without
 * Deno's FFI permission, past {@linkcode MAX_WATCHED_FOLDERS}, on another
 * file system.
 *
 * @example Deno only (inotify through its FFI)
 * ```ts
 * import { FolderWatch } from "./_folder_watch.ts";
 * import assert from "node:assert/strict";
 *
 * const dir = Deno.realPathSync(Deno.makeTempDirSync());
 * const watch = new FolderWatch();
 * watch.begin([dir]);
 * watch.watch(dir);
 * const verifiedAt = watch.now();
 * watch.begin([dir]);
 * // A root is always looked at; nothing is trusted outside a watch.
 * assert.equal(watch.trusted(dir, verifiedAt), false);
 * watch.close();
 * Deno.removeSync(dir);
 * ```
 */
export class FolderWatch {
  readonly #open: () => FolderEvents | string;
  readonly #mountTable: () => string;
  #events: FolderEvents | undefined;
  /** Why there are no watches now (none: there may be). */
  #off: string | undefined;
  #closed = false;
  #tick = 0;
  readonly #byPath = new Map<string, Watched>();
  readonly #byWd = new Map<number, string>();
  /** The tick at which an event last marked each folder changed. */
  readonly #changedAt = new Map<string, number>();
  /** Each watched root's `dev:ino` when its watch was added. */
  readonly #roots = new Map<string, string>();
  /** The roots that may be watched: on a local file system, nothing mounted below. */
  #watchable = new Set<string>();
  #mounts: string | undefined;
  readonly #limit: number;
  /** The bound the watches met, in words (none: not met). */
  #full: string | undefined;
  /** Counts what may have changed a watched folder: each event read about one, each watch dropped. */
  #generation = 0;

  /**
   * `open` gives the events (by default a new inotify instance, or why none);
   * `mountTable` reads the mount table (`/proc/self/mountinfo` by default).
   */
  constructor(
    open: () => FolderEvents | string = openInotify,
    limit: number = watchLimit(),
    mountTable: () => string = readMountTable,
  ) {
    this.#open = open;
    this.#limit = limit;
    this.#mountTable = mountTable;
  }

  /**
   * Why the last pass looked at every folder it reached or some of them by
   * `lstat` (no watches, the bound met), or undefined when it needed not.
   */
  get fallback(): string | undefined {
    if (this.#off !== undefined) return this.#off;
    if (this.#full !== undefined) return `the folders watched reached the bound (${this.#full})`;
    return undefined;
  }

  /**
   * The bound the watches met, in words, when some folders are left to
   * `lstat` for it; undefined when it was not met.
   */
  get bound(): string | undefined {
    return this.#full;
  }

  /** How many folders are watched. */
  get size(): number {
    return this.#byPath.size;
  }

  /**
   * A count that moves with every event read about a watched folder and
   * every watch dropped (all of them with a full queue, a changed mount
   * table, a closed watch): while it stands still, every folder watched
   * keeps its watch and no event was read about it.
   */
  get generation(): number {
    return this.#generation;
  }

  /** Starts a pass over `roots` (canonical): reads what changed since the last (see the steps above). */
  begin(roots: readonly string[]): void {
    if (this.#closed) return;
    if (this.#events === undefined) {
      const opened = this.#open();
      if (typeof opened === "string") {
        this.#off = opened;
        return;
      }
      this.#events = opened;
      UNCLOSED_EVENTS.register(this, opened, opened);
      this.#off = undefined;
    }
    const tick = ++this.#tick;
    const events = this.#events.drain();
    if (events === "overflow") {
      this.#reset("the kernel's event queue overflowed");
      return;
    }
    const folderChanges =
      events.filter((event) => event.mask & IN_ISDIR && event.mask & ENTRY_CHANGES).length;
    if (folderChanges > MAX_FOLDER_CHANGES) {
      this.#reset(`${folderChanges} folders were made, removed or moved since the last pass`);
      return;
    }
    for (const event of events) this.#apply(event, tick);
    if (!this.#checkMounts(roots)) return;
    for (const [root, identity] of this.#roots) {
      if (identityOf(root) !== identity) this.#drop(root);
    }
  }

  /** A tick: a folder looked at now is newer than every event read so far and every watch added. */
  now(): number {
    return ++this.#tick;
  }

  /**
   * True when `dir` (not a root) is watched since before `verifiedAt` (the
   * tick its listing was last read or confirmed at) and no event touched it
   * since: its listing is as it was then.
   */
  trusted(dir: string, verifiedAt: number): boolean {
    if (this.#roots.has(dir)) return false;
    const watched = this.#byPath.get(dir);
    return watched !== undefined && verifiedAt > watched.addedAt &&
      verifiedAt > (this.#changedAt.get(dir) ?? 0);
  }

  /**
   * Watches `dir` when it may be: it is a watchable root, or its parent is
   * watched; the bound is not met. A folder it does not watch is looked at
   * each pass.
   */
  watch(dir: string): void {
    const events = this.#events;
    if (events === undefined || this.#byPath.has(dir) || this.#full !== undefined) return;
    const root = this.#watchable.has(dir);
    if (!root && !this.#byPath.has(dirname(dir))) return;
    if (this.#byPath.size >= this.#limit) {
      this.#full = `${this.#limit} folders`;
      return;
    }
    // A root's parent is not watched: its inode before and after the watch must be the same.
    const before = root ? identityOf(dir) : undefined;
    const wd = events.add(dir);
    if (wd === "limit") {
      this.#full = "the user's inotify watches, fs.inotify.max_user_watches";
      return;
    }
    if (wd === undefined) return;
    if (root && (before === undefined || identityOf(dir) !== before)) {
      events.remove(wd);
      return;
    }
    if (this.#byWd.has(wd)) {
      // Watched already under another path (a bind mount): which one an event is for is unknown.
      this.#drop(this.#byWd.get(wd)!);
      return;
    }
    this.#byPath.set(dir, { wd, addedAt: ++this.#tick });
    this.#byWd.set(wd, dir);
    if (root) this.#roots.set(dir, before!);
  }

  /** Stops every watch and frees the instance; no watch is made afterwards. */
  close(): void {
    this.#closed = true;
    this.#clear();
    this.#off = "the executor was disposed";
  }

  /** What one event tells (see the class's steps). */
  #apply(event: FolderEvent, tick: number): void {
    const dir = this.#byWd.get(event.wd);
    // A watch dropped already: its folder is looked at anyway.
    if (dir === undefined) return;
    this.#generation++;
    if (event.name === "") {
      if (event.mask & WATCH_LOST) this.#drop(dir);
      else this.#changedAt.set(dir, tick);
      return;
    }
    this.#changedAt.set(dir, tick);
    // A name that is not valid UTF-8 cannot be matched with a path: all below the folder go.
    if (event.name.includes("\uFFFD") || event.name.includes("/")) {
      this.#drop(dir);
      return;
    }
    const child = join(dir, event.name);
    if (event.mask & ENTRY_CHANGES) {
      if (event.mask & IN_ISDIR || this.#byPath.has(child)) this.#drop(child);
    } else if (event.mask & IN_ATTRIB) this.#changedAt.set(child, tick);
  }

  /** Drops the watches at and below `path`: what is there is looked at, and watched anew. */
  #drop(path: string): void {
    this.#generation++;
    for (const [watched, { wd }] of this.#byPath) {
      if (!isBeneath(watched, path)) continue;
      this.#events?.remove(wd);
      this.#byPath.delete(watched);
      this.#byWd.delete(wd);
      this.#roots.delete(watched);
      this.#changedAt.delete(watched);
    }
    this.#full = undefined;
  }

  /** Drops every watch (the instance too, with what it queued); the next pass opens another. */
  #reset(why: string): void {
    this.#clear();
    this.#off = why;
  }

  #clear(): void {
    this.#generation++;
    if (this.#events !== undefined) UNCLOSED_EVENTS.unregister(this.#events);
    this.#events?.close();
    this.#events = undefined;
    this.#byPath.clear();
    this.#byWd.clear();
    this.#roots.clear();
    this.#changedAt.clear();
    this.#full = undefined;
  }

  /**
   * Tells which `roots` may be watched; false (every watch dropped) when the
   * mount table changed since the last pass.
   */
  #checkMounts(roots: readonly string[]): boolean {
    let table: string;
    try {
      table = this.#mountTable();
    } catch (error) {
      // Which roots lie on one file system with nothing mounted below is unknown: no watch.
      this.#mounts = undefined;
      this.#reset(`the mount table cannot be read (${messageOf(error)})`);
      return false;
    }
    if (table !== this.#mounts) {
      const changed = this.#mounts !== undefined;
      this.#mounts = table;
      this.#watchable.clear();
      if (changed) {
        this.#reset("the mount table changed");
        return false;
      }
    }
    for (const root of roots) {
      if (!this.#watchable.has(root) && watchableRoot(root, table)) this.#watchable.add(root);
    }
    return true;
  }
}

/** This process's mount table. */
function readMountTable(): string {
  return readFileSync("/proc/self/mountinfo", "utf8");
}

/** `dev:ino` of the folder at `path`, or undefined when it is none. */
function identityOf(path: string): string | undefined {
  try {
    const state = pathState(path);
    return state?.kind === "directory" ? `${state.dev}:${state.ino}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * True when `root` lies on a local file system (see `LOCAL_FILE_SYSTEMS`) and
 * nothing is mounted below it, as `table` (`/proc/self/mountinfo`) tells.
 */
export function watchableRoot(root: string, table: string): boolean {
  let best: { point: string; type: string } | undefined;
  for (const line of table.split("\n")) {
    const fields = line.split(" ");
    const separator = fields.indexOf("-");
    const point = fields[4];
    const type = fields[separator + 1];
    if (separator < 0 || point === undefined || type === undefined) continue;
    const at = point.replace(
      /\\([0-7]{3})/g,
      (_, code: string) => String.fromCharCode(parseInt(code, 8)),
    );
    if (at !== root && isBeneath(at, root)) return false;
    if (at === root || isBeneath(root, at)) {
      if (best === undefined || at.length >= best.point.length) best = { point: at, type };
    }
  }
  return best !== undefined && LOCAL_FILE_SYSTEMS.has(best.type);
}

/** The bound of watched folders: {@linkcode MAX_WATCHED_FOLDERS}, or a quarter of the user's watches. */
function watchLimit(): number {
  try {
    const max = Number(readFileSync("/proc/sys/fs/inotify/max_user_watches", "utf8").trim());
    return Number.isFinite(max) && max > 0
      ? Math.min(MAX_WATCHED_FOLDERS, Math.floor(max / 4))
      : MAX_WATCHED_FOLDERS;
  } catch {
    return MAX_WATCHED_FOLDERS;
  }
}
