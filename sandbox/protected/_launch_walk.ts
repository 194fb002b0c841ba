import { basename, dirname, join, resolve } from "node:path";
import { canonicalPath, existingRealpath, isBeneath } from "../../engine/mod.ts";
import { type ExpandedConfig, globalGitConfigFiles, repositoryGitConfig } from "./_git_config.ts";
import type { Listing } from "./_listings.ts";
import { located } from "./_located.ts";
import type { FoundShapes } from "./_found_shapes.ts";
import type { PointerReads } from "./_pointer_reads.ts";
import { ABSENT, type Shape, shapeOf } from "./_shape.ts";
import { walk } from "./_walk.ts";
import type { GitConfigs } from "./_git_configs.ts";
import type { FolderListings } from "./_listings.ts";

/**
 * What a walk keeps from walk to walk (an executor's `WalkMemory`): the
 * folders' listings, the parsed git configs, the shapes of the protected
 * directories found and the pointers read.
 */
export interface WalkCaches {
  readonly listings: FolderListings;
  readonly configs: GitConfigs;
  readonly shapes: FoundShapes;
  readonly pointers: PointerReads;
}

/**
 * What protecting one call needs: the existing paths to bind read-only, and
 * every protected location (and pointer target) as it was at launch.
 */
export interface ProtectionPlan {
  /** Existing paths to bind read-only (none beneath another), shallowest first. */
  readOnly: string[];
  /**
   * Where a walk stopped: a writable root whose walk met a bound, or a
   * directory below one that could not be listed (`unlisted`).
   */
  unwalked: { root: string; bound: "depth" | "entries" | "unlisted" }[];
}

/** What the launch's walk saw: the plan, and what the sweeps compare against. */
export interface LaunchWalk {
  /** The writable roots walked (canonical, existing). */
  roots: readonly string[];
  /** The protected names looked for. */
  names: readonly string[];
  /** The folders the walks never enter. */
  skipped: ReadonlySet<string>;
  /** What the walks keep from walk to walk. */
  memory: WalkCaches;
  /** What to bind read-only, and where the walk stopped. */
  plan: ProtectionPlan;
  /** Every protected location (and pointer target) as it was at launch. */
  watched: Map<string, Shape>;
  /** The protected directories found at launch (`dev:ino`), wherever they are moved. */
  directories: Set<string>;
  /** The listing of every directory the launch's walk listed. */
  listings: Map<string, Listing>;
  /** When the launch's walk began (ms since the epoch): what changed since, a command may have made. */
  launchedAt: number;
}

/**
 * Walks the writable `roots` (canonical, existing) for the protected
 * `names`; the walks never enter `skipped` (executors' private folders that
 * lie in a root: no command writes there); what did not change since
 * `memory`'s last walk is not read again.
 */
export function walkAtLaunch(
  roots: readonly string[],
  names: readonly string[],
  skipped: ReadonlySet<string>,
  memory: WalkCaches,
): LaunchWalk {
  // One pass: each folder is looked at once, however many names are looked up in it.
  return memory.listings.pass(() => launchWalk(roots, names, skipped, memory), roots);
}

/** See {@linkcode walkAtLaunch}, which runs it as one pass of the listings. */
function launchWalk(
  roots: readonly string[],
  names: readonly string[],
  skipped: ReadonlySet<string>,
  memory: WalkCaches,
): LaunchWalk {
  const launchedAt = Date.now();
  const launch = new Launch(roots, memory);
  const listings = new Map<string, Listing>();
  const unwalked: ProtectionPlan["unwalked"] = [];
  for (const root of roots) {
    // A missing path at a root is watched too: it is the one git finds first.
    for (const name of names) launch.watched.set(join(root, name), ABSENT);
    const bound = walk(root, names, skipped, {
      found: (location, listed) => launch.protect(location, listed),
      listed: (dir, listing) => listings.set(dir, listing),
      unlisted: (dir) => unwalked.push({ root: dir, bound: "unlisted" }),
    }, memory.listings);
    if (bound !== undefined) unwalked.push({ root, bound });
  }
  // The user's global git config (and what it includes) is obeyed by git in
  // every repository, wherever it lies: protected with `.gitconfig`.
  if (names.includes(".gitconfig")) {
    const global = launch.globalConfig();
    for (const file of [...global.files, ...global.included]) launch.target(file, 0);
  }
  const directories = new Set<string>();
  for (const shape of launch.watched.values()) {
    if (shape.kind === "directory") directories.add(`${shape.dev}:${shape.ino}`);
  }
  const plan = { readOnly: outermostPaths(launch.readOnly), unwalked };
  const { watched } = launch;
  return { roots, names, skipped, memory, plan, watched, directories, listings, launchedAt };
}

/**
 * The `paths` (absolute, canonical) that lie beneath no other, shallowest
 * first. Each is checked against its own folders, not against every other
 * path: the launch binds one path per protected location found, 150 in the
 * bench's tree, and comparing each with each cost more than finding them.
 */
function outermostPaths(paths: Iterable<string>): string[] {
  const byDepth = [...paths].map((path) => ({ path, depth: path.split("/").length }))
    .sort((a, b) => a.depth - b.depth);
  const kept = new Set<string>();
  for (const { path } of byDepth) {
    let covered = false;
    for (let dir = dirname(path); !covered; dir = dirname(dir)) {
      covered = kept.has(dir);
      if (dir === dirname(dir)) break;
    }
    if (!covered) kept.add(path);
  }
  return [...kept];
}

/** What the launch's walk gathers as it finds each protected location. */
class Launch {
  readonly #roots: readonly string[];
  readonly #memory: WalkCaches;
  /** The global git config files, with what they include: read once, at the first repository. */
  #global: ExpandedConfig | undefined;
  /** Every protected location (and pointer target) as it was at launch. */
  readonly watched = new Map<string, Shape>();
  /** The existing paths to bind read-only (some may lie beneath others). */
  readonly readOnly = new Set<string>();
  /** What each folder of a location was found to be (see `located`). */
  readonly #parents = new Map<string, string | null>();
  /** The pointer targets looked at so far, with the fewest hops they were reached in. */
  readonly #targeted = new Map<string, number>();

  constructor(roots: readonly string[], memory: WalkCaches) {
    this.#roots = roots;
    this.#memory = memory;
  }

  /** The global git config files, expanded (see `repositoryGitConfig`). */
  globalConfig(): ExpandedConfig {
    this.#global ??= this.#memory.configs.expanded(globalGitConfigFiles());
    return this.#global;
  }

  /**
   * Records `found` (found by the walk, existing) and what protecting it
   * needs; `listed` says where it is needs no resolving (see `WalkVisitor.found`).
   */
  protect(found: string, listed: boolean): void {
    const location = listed ? found : located(found, this.#roots, this.#parents);
    if (location === undefined) return;
    const before = Date.now();
    // A name found in a listing may keep its last shape (see `FoundShapes`).
    const shape = listed ? this.#memory.shapes.shape(location) : shapeOf(location);
    this.watched.set(location, shape);
    if (basename(location) === ".git") {
      const config = repositoryGitConfig(
        location,
        this.globalConfig(),
        (files) => this.#memory.configs.expanded(files),
        (path) => this.#memory.listings.absent(path),
        // Where it is was resolved just now (its folder is canonical).
        shape.kind === "directory",
      );
      for (const path of [...config.hooksPaths, ...config.files]) this.target(path, 0);
    }
    if (shape.kind === "directory" || shape.kind === "file") {
      this.readOnly.add(location);
      this.#follow(location, shape, before, 0);
      return;
    }
    if (shape.kind !== "symlink") return;
    // The link itself cannot be bound (a mount follows it): its target can,
    // and the link is put back if a command replaces it.
    const target = existingRealpath(location) ??
      (shape.link === undefined ? undefined : resolve(dirname(location), shape.link));
    if (target !== undefined) this.target(target, 0);
  }

  /**
   * A pointer target: protected like the path itself when it lies in a
   * writable root; a missing one is watched, so that what a command creates
   * there (for git to find through the pointer) is moved away.
   */
  target(path: string, hops: number): void {
    // Every repository names the global config files: each is looked at once.
    const fewest = this.#targeted.get(path);
    if (fewest !== undefined && fewest <= hops) return;
    this.#targeted.set(path, hops);
    const target = this.#canonical(path);
    if (hops > 4 || !this.#roots.some((root) => isBeneath(target, root))) return;
    if (this.#roots.includes(target)) return;
    const before = Date.now();
    const shape = shapeOf(target);
    if (shape.kind === "absent" && !this.watched.has(target)) this.watched.set(target, ABSENT);
    if (shape.kind !== "directory" && shape.kind !== "file") return;
    this.watched.set(target, shape);
    this.readOnly.add(target);
    this.#follow(target, shape, before, hops + 1);
  }

  /**
   * `canonicalPath(path)`, with no failed resolve for a name its folder's
   * listing lacks, nor for one in such a folder (the global config files
   * most homes do not have: Deno builds an exception for each failed
   * resolve, at every launch).
   */
  #canonical(path: string): string {
    const parent = dirname(path);
    const { listings } = this.#memory;
    // The folder first: looking into a missing one fails.
    if (parent === path || (!listings.absent(parent) && !listings.absent(path))) {
      return canonicalPath(path);
    }
    return join(this.#canonical(parent), basename(path));
  }

  /**
   * Follows git's pointers: a `gitdir: <dir>` file names the repository, whose
   * `commondir` file names the main repository of a linked worktree. `shape`
   * is the path's, taken at `before` (a file's state read with it spares the
   * pointer's own `lstat`).
   */
  #follow(path: string, shape: Shape, before: number, hops: number): void {
    const kind = shape.kind;
    const pointer = kind === "file" ? path : join(path, "commondir");
    // Most repositories have no `commondir`: its folder's listing tells.
    if (kind === "directory" && this.#memory.listings.absent(pointer)) return;
    const text = this.#memory.pointers.read(
      pointer,
      kind === "file" && shape.file !== undefined ? { state: shape.file, before } : undefined,
    );
    if (text === undefined) return;
    const named = kind === "file" ? /^gitdir:\s*(.+)$/m.exec(text)?.[1] : text.split("\n")[0];
    if (named === undefined || named.trim() === "") return;
    this.target(resolve(dirname(pointer), named.trim()), hops);
  }
}
