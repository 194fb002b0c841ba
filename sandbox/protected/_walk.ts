import { join } from "node:path";
import { isBeneath } from "../../engine/mod.ts";
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

/** What a walk told its visitor, kept to be told again while nothing it read changed. */
interface WalkRecord {
  /** The folder watch's generation when the walk began and ended (see `FolderListings.generation`). */
  generation: number;
  /** The root's listing, kept by the listings (the root is never vouched for: its times tell). */
  rootListing: Listing;
  listed: [string, Listing][];
  found: [string, boolean][];
  stopped: "depth" | "entries" | undefined;
}

/** The last walk of each root (for one list of names, skipped folders and bound), by listings. */
const RECORDS = new WeakMap<FolderListings, Map<string, WalkRecord>>();

/**
 * Walks breadth first below `root` and tells `visitor` each protected
 * location that exists and each directory it listed or could not. It never
 * goes through a symlink, nor into a protected path, a skipped tree
 * ({@linkcode PROTECTED_WALK_SKIPS}) or a `skipped` folder. A folder that
 * has not changed since `listings` last read it is not listed again.
 * Returns the bound it stopped at, if it did; with `bounded` false it has
 * none.
 *
 * In a pass of `listings`, the walk is not walked again while nothing it
 * read can have changed: what the last one told is told again. That is
 * when the last walk read only listings the folder watch vouched for
 * (`FolderListings.vouched`: each folder watched before its listing was
 * read or confirmed), besides the root's kept listing, looked up no name of
 * several parts (which may lie through a symlinked folder no watch sees)
 * and met no folder it could not list; and when, since it began, the
 * watch's generation stood still (no event about a watched folder was read,
 * no watch was dropped, see `FolderWatch.generation`) and the root's
 * listing is the same (its times unchanged). Making, removing or renaming
 * a name in any folder walked queues an event on its watch, read when the
 * next pass begins: a plant anywhere makes the next walk walk again.
 */
export function walk(
  root: string,
  names: readonly string[],
  skipped: ReadonlySet<string>,
  visitor: WalkVisitor,
  listings: FolderListings,
  bounded = true,
): "depth" | "entries" | undefined {
  const namesKey = names.join("\0");
  const generation = listings.generation();
  const records = RECORDS.get(listings) ?? new Map<string, WalkRecord>();
  RECORDS.set(listings, records);
  // Only the skipped folders in the root tell one walk from another (the
  // executors' private folders beside it come and go).
  const skippedHere = [...skipped].filter((path) => isBeneath(path, root));
  const key = `${root}\0\0${namesKey}\0\0${skippedHere.join("\0")}\0\0${bounded}`;
  const last = generation === undefined ? undefined : records.get(key);
  if (last !== undefined && last.generation === generation) {
    let rootListing;
    try {
      rootListing = listings.listing(root);
    } catch {
      rootListing = undefined;
    }
    if (rootListing === last.rootListing) {
      for (const [dir, listing] of last.listed) visitor.listed?.(dir, listing);
      for (const [location, listed] of last.found) visitor.found(location, listed);
      return last.stopped;
    }
  }
  records.delete(key);
  const record: Omit<WalkRecord, "stopped" | "rootListing"> | undefined = generation === undefined
    ? undefined
    : { generation, listed: [], found: [] };
  let rootListing: Listing | undefined;
  const told: WalkVisitor = record === undefined ? visitor : {
    found: (location, listed) => {
      record.found.push([location, listed]);
      visitor.found(location, listed);
    },
    listed: (dir, listing) => {
      record.listed.push([dir, listing]);
      visitor.listed?.(dir, listing);
    },
  };
  let replayable = record !== undefined;
  const stopped = walkTree(
    root,
    names,
    namesKey,
    skipped,
    {
      ...told,
      unlisted: (dir) => {
        replayable = false;
        visitor.unlisted?.(dir);
      },
      unsure: () => replayable = false,
      read: (dir, listing) => {
        if (dir === root ? !listings.keeps(dir, listing) : !listings.vouched(dir)) {
          replayable = false;
        }
        if (dir === root) rootListing = listing;
      },
    },
    listings,
    bounded,
  );
  // A watch dropped during the walk (a folder watched twice through a bind mount) moves it.
  if (
    replayable && record !== undefined && rootListing !== undefined &&
    listings.generation() === record.generation
  ) {
    records.set(key, { ...record, rootListing, stopped });
  }
  return stopped;
}

/** What `walkTree` tells besides a `WalkVisitor`'s: what a replay depends on. */
interface TreeVisitor extends WalkVisitor {
  /**
   * What the walk told depends on more than the listings it read: a name of
   * several parts looked up, a folder that could not be listed or was gone.
   */
  unsure(): void;
  /** A folder's listing was read (or reused). */
  read(dir: string, listing: Listing): void;
}

/** See {@linkcode walk}: the walk itself, with no record of it. */
function walkTree(
  root: string,
  names: readonly string[],
  namesKey: string,
  skipped: ReadonlySet<string>,
  visitor: TreeVisitor,
  listings: FolderListings,
  bounded: boolean,
): "depth" | "entries" | undefined {
  // The names by their first part, the one a directory listing shows.
  const byFirst = new Map<string, readonly string[]>();
  for (const name of names) {
    const first = name.split("/")[0]!;
    byFirst.set(first, [...byFirst.get(first) ?? [], name]);
  }
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
        visitor.unsure();
        if (shapeOf(dir).kind !== "directory") continue;
        visitor.unlisted?.(dir);
        for (const name of names) {
          if (shapeOf(join(dir, name)).kind !== "absent") visitor.found(join(dir, name), false);
        }
        continue;
      }
      // Gone, or no longer a folder, since its parent was listed.
      if (listing === undefined) {
        visitor.unsure();
        continue;
      }
      visitor.read(dir, listing);
      visitor.listed?.(dir, listing);
      entries += listing.entries.length;
      const plan = folderPlan(dir, listing, namesKey, byFirst);
      for (const { location, severalParts: several } of plan.matches) {
        if (several) {
          visitor.unsure();
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
