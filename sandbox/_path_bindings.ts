/**
 * Whether the names on the way to some paths still name what they named:
 * what a sandbox set up ahead relies on (see `LaunchStandby.setUp`). A
 * mount follows the entry it was made on, not its path: rename a folder
 * on the way away and back, or replace the path by a rename, and the
 * mount no longer covers what the path names, while the path looks the
 * same to a walk.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { type PathState, pathState } from "../runtime/mod.ts";
import { settledSince } from "../engine/mod.ts";

/** What a name named when the bindings were taken, and whether its times vouch for it. */
interface Bound {
  /** What was there; null for nothing. */
  state: PathState | null;
  /** Its times were settled (see `settledSince`): a change from then on gives it other times. */
  settled: boolean;
}

/**
 * The names on the way to some paths, each with what it named when they
 * were taken. `hold()` says whether each still names the same entry and
 * could not have named another meanwhile. A name `P/C` went on naming the
 * same entry when either:
 * 1. the folder `P` has the same inode and times: making, removing or
 *    renaming an entry in a folder sets its times (setting them back sets
 *    its change time, which no one can set); or
 * 2. the entry `C` has the same inode and times: renaming an entry sets its
 *    change time, and so does removing a name of it (its link count).
 *
 * Either holds only for times that were settled when the bindings were
 * taken: Deno gives the change time in whole seconds, so a change in the
 * same second could leave it as it was; and a reused inode number comes
 * with a new change time. This relies on the kernel stamping the times, as
 * the protected-path walk does (Linux's local file systems).
 *
 * The host's mount table must be as it was too: a sandbox's copy of it
 * follows the host's only where the host's mounts propagate (systemd makes
 * them shared; a private one does not), and a mount on the way changes
 * what a name resolves to.
 */
export class PathBindings {
  readonly #bound: ReadonlyMap<string, Bound>;
  readonly #mounts: string;

  private constructor(bound: ReadonlyMap<string, Bound>, mounts: string) {
    this.#bound = bound;
    this.#mounts = mounts;
  }

  /**
   * The bindings of every name on the way to each of `paths` (absolute),
   * taken now; or, when some name is vouched for by no settled time (it or
   * its folder changed within the last second), the time after which it
   * may be (for a later try); undefined when they cannot be told (a path
   * that cannot be looked at, no mount table).
   */
  static take(paths: Iterable<string>): PathBindings | { settlesAt: number } | undefined {
    try {
      return PathBindings.#take(paths);
    } catch {
      return undefined;
    }
  }

  static #take(paths: Iterable<string>): PathBindings | { settlesAt: number } {
    // Read before the first look: a change from then on gives other times than those seen.
    const now = Date.now();
    const mounts = mountTable();
    const bound = new Map<string, Bound>();
    let settlesAt = 0;
    const look = (path: string): Bound | undefined => {
      const known = bound.get(path);
      if (known !== undefined) return known;
      const parent = dirname(path);
      if (parent !== path) {
        const above = look(parent);
        // Nothing is below nothing.
        if (above === undefined || above.state === null) return undefined;
      }
      const state = pathState(path) ?? null;
      const after = state === null ? 0 : settledSince(state.mtimeMs, state.ctimeMs);
      const found = { state, settled: after < now };
      bound.set(path, found);
      if (state !== null && parent !== path && !found.settled) {
        const folder = bound.get(parent) as Bound;
        if (!folder.settled) {
          const folderState = folder.state as PathState;
          settlesAt = Math.max(
            settlesAt,
            Math.min(
              after,
              settledSince(folderState.mtimeMs, folderState.ctimeMs),
            ),
          );
        }
      }
      return found;
    };
    for (const path of paths) look(path);
    return settlesAt > 0 ? { settlesAt } : new PathBindings(bound, mounts);
  }

  /**
   * True when every name still names what it did when the bindings were
   * taken, and could not have named anything else meanwhile (see the class).
   */
  hold(): boolean {
    try {
      return this.#hold();
    } catch {
      // What cannot be looked at cannot be vouched for.
      return false;
    }
  }

  #hold(): boolean {
    if (mountTable() !== this.#mounts) return false;
    const now = new Map<string, PathState | null>();
    const stateOf = (path: string): PathState | null => {
      let state = now.get(path);
      if (state === undefined) now.set(path, state = pathState(path) ?? null);
      return state;
    };
    const unchanged = (path: string, then: Bound): boolean =>
      then.settled && then.state !== null && same(then.state, stateOf(path));
    for (const [path, then] of this.#bound) {
      const state = stateOf(path);
      if (then.state === null || state === null) {
        // Nothing then and now: what came and went meanwhile is gone for the launch as for the standby.
        if (then.state !== state) return false;
        continue;
      }
      if (then.state.dev !== state.dev || then.state.ino !== state.ino) return false;
      const parent = dirname(path);
      if (parent === path) continue;
      if (!unchanged(path, then) && !unchanged(parent, this.#bound.get(parent) as Bound)) {
        return false;
      }
    }
    return true;
  }
}

/** Whether two looks saw the same entry with the same times (NaN, unknown, is never the same). */
function same(a: PathState, b: PathState | null): boolean {
  return b !== null && a.kind === b.kind && a.dev === b.dev && a.ino === b.ino &&
    a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}

/** The host's mount table, as this process sees it. */
function mountTable(): string {
  return readFileSync("/proc/self/mountinfo", "utf8");
}
