import { join } from "node:path";
import type { FolderListings, Listing } from "./_listings.ts";
import { shapeOf } from "./_shape.ts";

/** How many directories deep below a writable root the walk looks for nested protected paths. */
export const PROTECTED_WALK_DEPTH = 6;

/** How many directory entries the walk reads below one writable root, at most. */
export const PROTECTED_WALK_ENTRIES = 20_000;

/**
 * Directories the walk does not enter: dependency and cache trees that hold
 * thousands of entries and no repository anyone runs git in.
 */
export const PROTECTED_WALK_SKIPS: readonly string[] = Object.freeze([
  "node_modules",
  ".venv",
  "__pycache__",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
  ".gradle",
  ".next",
]);

/** What a walk reports as it goes. */
export interface WalkVisitor {
  /**
   * A protected location that exists. `listed` says it is a name of one part
   * in the listing of a folder the walk reached: then its folder is real (the
   * walk never goes through a symlink) and canonical (as the roots are).
   */
  found(location: string, listed: boolean): void;
  /** A directory it listed (or whose listing it reused: it had not changed). */
  listed?(dir: string, listing: Listing): void;
  /** A directory it could not list (its protected names were still looked up). */
  unlisted?(dir: string): void;
}

/**
 * Walks breadth first below `root` and tells `visitor` each protected
 * location that exists and each directory it listed or could not. It never
 * goes through a symlink, nor into a protected path, a skipped tree
 * ({@linkcode PROTECTED_WALK_SKIPS}) or a `skipped` folder. A folder that
 * has not changed since `listings` last read it is not listed again.
 * Returns the bound it stopped at, if it did; with `bounded` false it has
 * none.
 */
export function walk(
  root: string,
  names: readonly string[],
  skipped: ReadonlySet<string>,
  visitor: WalkVisitor,
  listings: FolderListings,
  bounded = true,
): "depth" | "entries" | undefined {
  // The names by their first part, the one a directory listing shows.
  const byFirst = new Map<string, readonly string[]>();
  for (const name of names) {
    const first = name.split("/")[0]!;
    byFirst.set(first, [...byFirst.get(first) ?? [], name]);
  }
  const namesKey = names.join("\0");
  /** The protected paths of several parts found so far (never walked into). */
  const severalParts = new Set<string>();
  let queue: string[] = [root];
  let entries = 0;
  let stopped: "depth" | "entries" | undefined;
  for (let depth = 0; queue.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of queue) {
      let listing;
      try {
        listing = listings.listing(dir);
      } catch {
        // Gone since it was listed, or unreadable: a directory one may enter
        // but not list still lets git find what is in it by name.
        if (shapeOf(dir).kind !== "directory") continue;
        visitor.unlisted?.(dir);
        for (const name of names) {
          if (shapeOf(join(dir, name)).kind !== "absent") visitor.found(join(dir, name), false);
        }
        continue;
      }
      // Gone, or no longer a folder, since its parent was listed.
      if (listing === undefined) continue;
      visitor.listed?.(dir, listing);
      entries += listing.entries.length;
      const plan = folderPlan(dir, listing, namesKey, byFirst);
      for (const { location, severalParts: several } of plan.matches) {
        if (several) {
          if (shapeOf(location).kind === "absent") continue;
          severalParts.add(location);
        }
        visitor.found(location, !several);
      }
      // A folder holding a protected path of several parts (`.config/git`)
      // is walked too, but not the protected path itself.
      const subdirectories = severalParts.size === 0
        ? plan.subdirectories
        : plan.subdirectories.filter((path) => !severalParts.has(path));
      if (bounded && entries > PROTECTED_WALK_ENTRIES) return "entries";
      if (bounded && subdirectories.length > 0 && depth >= PROTECTED_WALK_DEPTH) stopped = "depth";
      else {
        for (const path of subdirectories) if (!skipped.has(path)) next.push(path);
      }
    }
    queue = next;
  }
  return stopped;
}

/** What a walk makes of one folder's listing, for one list of protected names. */
interface FolderPlan {
  /** The protected names it was made for, joined. */
  names: string;
  /** The protected locations its entries start, in their order (one of several parts may not exist). */
  matches: { location: string; severalParts: boolean }[];
  /** The folders to walk into (full paths): no symlink, protected path or skipped tree. */
  subdirectories: string[];
}

/** The plan of each listing, made once while the listing is kept (see `FolderListings`). */
const PLANS = new WeakMap<Listing, FolderPlan>();

/** What a walk for `names` (joined in `namesKey`, indexed in `byFirst`) makes of `dir`'s `listing`. */
function folderPlan(
  dir: string,
  listing: Listing,
  namesKey: string,
  byFirst: ReadonlyMap<string, readonly string[]>,
): FolderPlan {
  const kept = PLANS.get(listing);
  if (kept !== undefined && kept.names === namesKey) return kept;
  const plan: FolderPlan = { names: namesKey, matches: [], subdirectories: [] };
  for (const entry of listing.entries) {
    const named = byFirst.get(entry.name) ?? [];
    for (const name of named) {
      plan.matches.push({ location: join(dir, name), severalParts: name.includes("/") });
    }
    if (
      !entry.isDirectory || named.includes(entry.name) || PROTECTED_WALK_SKIPS.includes(entry.name)
    ) continue;
    plan.subdirectories.push(join(dir, entry.name));
  }
  PLANS.set(listing, plan);
  return plan;
}
