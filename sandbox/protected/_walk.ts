import { runtime } from "../../runtime/mod.ts";
import { shapeOf } from "./_shape.ts";
import { join } from "node:path";

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
  /** A protected location that exists. */
  found(location: string): void;
  /** A directory it listed, with the names of its entries. */
  listed?(dir: string, entries: string[]): void;
  /** A directory it could not list (its protected names were still looked up). */
  unlisted?(dir: string): void;
}

/**
 * Walks breadth first below `root` and tells `visitor` each protected
 * location that exists and each directory it listed or could not. It never
 * goes through a symlink, nor into a protected path, a skipped tree
 * ({@linkcode PROTECTED_WALK_SKIPS}) or a `skipped` folder. Returns the bound
 * it stopped at, if it did; with `bounded` false it has none.
 */
export function walk(
  root: string,
  names: readonly string[],
  skipped: ReadonlySet<string>,
  visitor: WalkVisitor,
  bounded = true,
): "depth" | "entries" | undefined {
  // The names by their first part, the one a directory listing shows.
  const byFirst = new Map<string, string[]>();
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
        listing = runtime.readDirectory(dir);
      } catch {
        // Gone since it was listed, or unreadable: a directory one may enter
        // but not list still lets git find what is in it by name.
        if (shapeOf(dir).kind !== "directory") continue;
        visitor.unlisted?.(dir);
        for (const name of names) {
          if (shapeOf(join(dir, name)).kind !== "absent") visitor.found(join(dir, name));
        }
        continue;
      }
      visitor.listed?.(dir, listing.map((entry) => entry.name));
      entries += listing.length;
      const subdirectories: string[] = [];
      for (const entry of listing) {
        const named = byFirst.get(entry.name) ?? [];
        for (const name of named) {
          const location = join(dir, name);
          if (name.includes("/")) {
            if (shapeOf(location).kind === "absent") continue;
            severalParts.add(location);
          }
          visitor.found(location);
        }
        // A folder holding a protected path of several parts (`.config/git`)
        // is walked too, but not the protected path itself.
        if (
          !entry.isDirectory || named.includes(entry.name) ||
          PROTECTED_WALK_SKIPS.includes(entry.name) ||
          (severalParts.size > 0 && severalParts.has(join(dir, entry.name)))
        ) continue;
        subdirectories.push(entry.name);
      }
      if (bounded && entries > PROTECTED_WALK_ENTRIES) return "entries";
      if (bounded && subdirectories.length > 0 && depth >= PROTECTED_WALK_DEPTH) stopped = "depth";
      else {
        for (const name of subdirectories) {
          if (!skipped.has(join(dir, name))) next.push(join(dir, name));
        }
      }
    }
    queue = next;
  }
  return stopped;
}
