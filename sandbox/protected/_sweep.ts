import { lstatSync, symlinkSync } from "node:fs";
import { basename, dirname } from "node:path";
import type { SandboxViolation } from "../../seam/mod.ts";
import type { LaunchWalk, ProtectionPlan } from "./_launch_walk.ts";
import { located } from "./_located.ts";
import { openUp, type Quarantine } from "./_quarantine.ts";
import { ABSENT, sameShape, shapeOf } from "./_shape.ts";
import { CLOCK_TICK_MS } from "./_listings.ts";
import { PROTECTED_WALK_ENTRIES, walk } from "./_walk.ts";

/**
 * The sweeps of one call: each compares every protected location with what
 * the launch's walk saw, and moves to the quarantine what a command planted.
 */
export class Sweep {
  readonly #launch: LaunchWalk;
  readonly #quarantine: Quarantine;
  readonly #unmovable = new Set<string>();
  readonly #violations: SandboxViolation[] = [];
  readonly #unwalked: ProtectionPlan["unwalked"];

  /** Sweeps what `launch` found, moving what was planted into `quarantine`. */
  constructor(launch: LaunchWalk, quarantine: Quarantine) {
    this.#launch = launch;
    this.#quarantine = quarantine;
    this.#unwalked = [...launch.plan.unwalked];
  }

  /** How many violations the sweeps found so far. */
  get violationCount(): number {
    return this.#violations.length;
  }

  /**
   * Where the walks so far stopped at a bound: at launch, and in the sweeps
   * (a command may fill a root past the bound to hide what it planted).
   */
  get unwalked(): ProtectionPlan["unwalked"] {
    return [...this.#unwalked];
  }

  /**
   * Moves to the quarantine whatever appeared at, or replaced, a protected
   * location since launch (a symlink that was replaced is put back), and
   * returns every violation found so far by this call's sweeps.
   */
  sweep(): SandboxViolation[] {
    // One pass: each folder is looked at once, however many names are looked up in it.
    return this.#launch.memory.listings.pass(() => this.#sweep(), this.#launch.roots);
  }

  /** See {@linkcode sweep}, which runs it as one pass of the listings. */
  #sweep(): SandboxViolation[] {
    const seen = new Set<string>(this.#launch.watched.keys());
    /** What the walks found in a folder's listing: where it is needs no resolving. */
    const listed = new Set<string>();
    const parents = new Map<string, string | null>();
    const hidden: string[] = [];
    const stopped = (root: string, bound: ProtectionPlan["unwalked"][number]["bound"]) => {
      const known = this.#unwalked.some((u) => u.root === root && u.bound === bound);
      if (!known) this.#unwalked.push({ root, bound });
    };
    for (const root of this.#launch.roots) {
      const bound = walk(root, this.#launch.names, this.#launch.skipped, {
        found: (location, inListing) => {
          seen.add(location);
          if (inListing) listed.add(location);
        },
        unlisted: (dir) => hidden.push(dir),
      }, this.#launch.memory.listings);
      if (bound === undefined) continue;
      stopped(root, bound);
      this.#pastBound(root, bound, seen);
    }
    // A directory the command made that cannot be listed could hide a plant
    // below it: it goes too. One that was there at launch is named instead.
    for (const dir of hidden) {
      if (!this.#madeDuringCall(dir)) {
        stopped(dir, "unlisted");
        continue;
      }
      // Moving a directory to another parent rewrites its "..": it must be writable.
      openUp(dir, 0);
      const to = this.#quarantine.move(dir);
      if (to === null) {
        stopped(dir, "unlisted");
        continue;
      }
      this.#violations.push({ path: dir, quarantinedTo: to, unlisted: true });
      openUp(to, PROTECTED_WALK_ENTRIES);
    }
    const { listings } = this.#launch.memory;
    // A root's parent is not one the walks list.
    const absent = (path: string) => !this.#launch.roots.includes(path) && listings.absent(path);
    for (const found of seen) {
      const path = listed.has(found) ? found : located(found, this.#launch.roots, parents, absent);
      if (path === undefined) continue;
      const before = this.#launch.watched.get(path) ?? ABSENT;
      // A name its folder's listing lacks (most of the root's) costs no lookup;
      // one found in a listing may keep its last shape (see `FoundShapes`).
      const now = this.#launch.memory.listings.absent(path)
        ? ABSENT
        : listed.has(found)
        ? this.#launch.memory.shapes.shape(path)
        : shapeOf(path);
      if (sameShape(before, now)) continue;
      // A protected directory that a command moved (renaming its parent) is
      // the user's, bound read-only all along. A moved file or symlink is not
      // kept: its relative pointer would now lead elsewhere.
      if (now.kind === "directory" && this.#launch.directories.has(`${now.dev}:${now.ino}`)) {
        this.#launch.watched.set(path, now);
        continue;
      }
      if (now.kind !== "absent") {
        const to = this.#quarantine.move(path);
        if (to === null) {
          if (!this.#unmovable.has(path)) this.#violations.push({ path, quarantinedTo: null });
          this.#unmovable.add(path);
          continue;
        }
        this.#violations.push({ path, quarantinedTo: to });
      }
      if (before.kind === "symlink" && before.link !== undefined) {
        try {
          symlinkSync(before.link, path);
        } catch {
          // Something was planted again meanwhile: the next sweep moves it.
        }
      }
      this.#launch.watched.set(path, shapeOf(path));
    }
    return [...this.#violations];
  }

  /**
   * Looks, with no bound, below `root`, whose walk stopped at `bound`, for the
   * protected names past it. The steps are:
   *
   * 1. The first time a sweep meets a bound the launch did not (a command
   *    filled or nested the root past it), that is a violation of its own.
   * 2. Each protected location found past the bound that a command may have
   *    made during the call is added to `seen`, so the sweep moves it away:
   *    when the launch's walk of `root` met no bound, one it did not find;
   *    else one whose inode changed since the launch (its ctime, which
   *    creating, renaming or changing an entry sets and no command can set
   *    back).
   * 3. The others, there before the call, are watched from now on.
   */
  #pastBound(root: string, bound: "depth" | "entries", seen: Set<string>): void {
    const atLaunch = this.#launch.plan.unwalked.some((u) =>
      u.root === root && u.bound !== "unlisted"
    );
    if (!this.#launch.plan.unwalked.some((u) => u.root === root && u.bound === bound)) {
      const known = this.#violations.some((v) => v.path === root && v.walkBound === bound);
      if (!known) this.#violations.push({ path: root, quarantinedTo: null, walkBound: bound });
    }
    walk(
      root,
      this.#launch.names,
      this.#launch.skipped,
      {
        found: (found) => {
          const path = located(found, this.#launch.roots);
          if (seen.has(found) || path === undefined || this.#launch.watched.has(path)) {
            seen.add(found);
            return;
          }
          if (!atLaunch || this.#changedSinceLaunch(path)) seen.add(found);
          else this.#launch.watched.set(path, shapeOf(path));
        },
      },
      this.#launch.memory.listings,
      false,
    );
  }

  /**
   * Whether the inode at `path` was made, renamed or changed since the
   * launch. The kernel stamps ctime from a clock that may lag by a tick, and
   * Deno reports it in whole seconds: what changed in the launch's second
   * (or the tick before) counts too.
   */
  #changedSinceLaunch(path: string): boolean {
    const since = Math.floor((this.#launch.launchedAt - CLOCK_TICK_MS) / 1000) * 1000;
    try {
      return lstatSync(path).ctimeMs >= since;
    } catch (error) {
      // Gone: nothing to move. Any other failure cannot prove the path old, so it counts as new.
      return (error as NodeJS.ErrnoException | null)?.code !== "ENOENT";
    }
  }

  /**
   * True when `dir` was not there at launch: the nearest ancestor that the
   * launch's walk listed did not hold the name on the way to it.
   */
  #madeDuringCall(dir: string): boolean {
    for (
      let child = dir, parent = dirname(dir);
      child !== parent;
      child = parent, parent = dirname(parent)
    ) {
      const listing = this.#launch.listings.get(parent);
      if (listing !== undefined) return !listing.names.has(basename(child));
      if (this.#launch.roots.includes(parent)) return false;
    }
    return false;
  }
}
