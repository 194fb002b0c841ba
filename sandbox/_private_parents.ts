/**
 * Every user's folder of private folders in the temporary folder, which a
 * confined command must not see (see `privateParents`), known at each call
 * without listing the temporary folder again. A shared temporary folder
 * changes every second (466 entries on the machine measured): its listing
 * was never kept, and cost 5-7% of the host's CPU a warm bwrap call.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { PRIVATE_PARENT_PREFIX, privateParents } from "../engine/mod.ts";
import { pathState } from "../runtime/mod.ts";
import {
  ENTRY_CHANGES,
  type FolderEvents,
  openInotify,
  UNCLOSED_EVENTS,
  WATCH_LOST,
  watchableRoot,
} from "./protected/mod.ts";

/** Events that make a name in the watched folder another entry, or end the watch. */
const CHANGES = ENTRY_CHANGES | WATCH_LOST;

/** The watched folder: its path, `dev:ino`, watch and the folders found in it. */
interface Watched {
  base: string;
  identity: string;
  wd: number;
  parents: readonly string[];
}

/**
 * The folders of private folders in a temporary folder (`privateParents`),
 * listed again only when an inotify event may have changed them. In order,
 * at each call:
 *
 * 1. Every event queued since the last call is read. The kernel queues an
 *    event before the system call that made it returns (see `_inotify.ts`),
 *    so the queue holds every change finished by now.
 * 2. The last answer stands when the folder is the one watched (same path
 *    and `dev:ino`: a mount over it, or a folder moved in its place, is
 *    another) and no event made, removed or renamed a name with the prefix
 *    `shellseam-u` in it, or ended the watch.
 * 3. Otherwise the old watch goes, a new one is added, and only then is the
 *    folder listed: a change after the listing makes an event.
 *
 * Any doubt lists the folder every time, as without a watch: inotify
 * refused (Node, Deno without its FFI permission, no watches left), a full
 * queue, or a folder on a file system whose changes may not all go through
 * this kernel (a network file system), or with something mounted below it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { WatchedPrivateParents } from "./_private_parents.ts";
 *
 * const base = mkdtempSync(join(tmpdir(), "parents-"));
 * const watched = new WatchedPrivateParents();
 * assert.deepEqual(watched.of(base), []);
 * mkdirSync(join(base, "shellseam-u4242"));
 * assert.deepEqual(watched.of(base), [join(base, "shellseam-u4242")]);
 * watched.close();
 * rmSync(base, { recursive: true });
 * ```
 */
export class WatchedPrivateParents {
  readonly #open: () => FolderEvents | string;
  readonly #mountTable: () => string;
  #events: FolderEvents | string | undefined;
  #watched: Watched | undefined;

  /** `open` gives the events (a new inotify instance by default, or why none); `mountTable` the mount table. */
  constructor(
    open: () => FolderEvents | string = openInotify,
    mountTable: () => string = () => readFileSync("/proc/self/mountinfo", "utf8"),
  ) {
    this.#open = open;
    this.#mountTable = mountTable;
  }

  /** The folders of private folders in `base` (see `privateParents`); throws when `base` cannot be listed. */
  of(base: string): string[] {
    if (this.#events === undefined) {
      this.#events = this.#open();
      if (typeof this.#events === "object") {
        UNCLOSED_EVENTS.register(this, this.#events, this.#events);
      }
    }
    const events = this.#events;
    if (typeof events === "string") return privateParents(base);
    const queued = events.drain();
    const state = pathState(base);
    const identity = state?.kind === "directory" ? `${state.dev}:${state.ino}` : undefined;
    const last = this.#watched;
    if (
      last !== undefined && queued !== "overflow" && last.base === base &&
      last.identity === identity &&
      !queued.some(({ wd, mask, name }) =>
        wd === last.wd && (mask & CHANGES) !== 0 &&
        (name === "" || name.startsWith(PRIVATE_PARENT_PREFIX))
      )
    ) {
      return [...last.parents];
    }
    this.#forget();
    const wd = identity !== undefined && watchableRoot(base, this.#mountTable())
      ? events.add(base)
      : undefined;
    // Events of the watch before this listing are read with the next call's, and only list again.
    const parents = privateParents(base);
    if (typeof wd === "number" && identity !== undefined) {
      this.#watched = { base, identity, wd, parents };
    }
    return parents;
  }

  /** Stops the watch and frees the inotify instance. */
  close(): void {
    this.#forget();
    if (typeof this.#events === "object") {
      UNCLOSED_EVENTS.unregister(this.#events);
      this.#events.close();
    }
    this.#events = "closed";
  }

  #forget(): void {
    if (this.#watched !== undefined && typeof this.#events === "object") {
      this.#events.remove(this.#watched.wd);
    }
    this.#watched = undefined;
  }
}
