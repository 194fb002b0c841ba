/**
 * Protected paths (`.git` and the policy's others) in every writable root:
 * found at launch by a bounded walk, bound read-only by the backends where
 * they exist, and checked again when the call ends, when whatever appeared
 * or changed where one belongs is moved to the executor's quarantine.
 *
 * @module
 */
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  readSync,
  renameSync,
  symlinkSync,
} from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { BashSpawnError, type SandboxViolation } from "../seam/mod.ts";
import process from "node:process";
import { runtime } from "../local/mod.ts";
import { canonicalPath, existingRealpath, isBeneath } from "./_paths.ts";

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

/** How far the kernel's file timestamps may lag its clock (one tick at the lowest HZ, 100). */
const CLOCK_TICK_MS = 10;

/** The most bytes of a `gitdir:` or `commondir` file that are read. */
const POINTER_BYTES = 4096;

/** The most bytes of a repository's `config` that are read for `core.hooksPath`. */
const CONFIG_BYTES = 256 * 1024;

/** What a path was, as `lstat` saw it (never following a symlink). */
interface Shape {
  kind: "absent" | "directory" | "file" | "symlink" | "other";
  dev: number;
  ino: number;
  /** A symlink's target, as written. */
  link?: string;
}

const ABSENT: Shape = { kind: "absent", dev: 0, ino: 0 };

function shapeOf(path: string): Shape {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return ABSENT;
  }
  const { dev, ino } = stat;
  if (stat.isSymbolicLink()) {
    try {
      return { kind: "symlink", dev, ino, link: readlinkSync(path) };
    } catch {
      return { kind: "symlink", dev, ino };
    }
  }
  return { kind: stat.isDirectory() ? "directory" : stat.isFile() ? "file" : "other", dev, ino };
}

function sameShape(a: Shape, b: Shape): boolean {
  return a.kind === b.kind && a.dev === b.dev && a.ino === b.ino && a.link === b.link;
}

/**
 * The guards of the calls in this process that may still be running: from
 * launch until their last sweep (a guard whose spawn failed is dropped when
 * it is collected). A commit in progress must not overlap their roots (see
 * {@linkcode CommitClaim}).
 */
const LIVE = new Set<WeakRef<ProtectedPaths>>();

/**
 * Why a confined command could have planted or written `path` (canonical; a
 * repository's `.git` or git directory), or undefined when it cannot: a
 * walk of `workspace` as a call's launch makes would bind it read-only (so
 * it is not past the walk's bounds nor in a skipped tree). A path outside
 * the workspace is not judged. Calls still running are
 * {@linkcode CommitClaim}'s to judge.
 */
export function unprotectedReason(path: string, workspace: string): string | undefined {
  if (!isBeneath(path, workspace)) return undefined;
  const fresh = new ProtectedPaths([workspace], [".git"], () => workspace);
  if (fresh.plan.readOnly.some((bound) => isBeneath(path, bound))) return undefined;
  return `the sandbox does not keep "${path}" read-only (it lies past the walk's ${PROTECTED_WALK_DEPTH} levels or ${PROTECTED_WALK_ENTRIES} entries, in a skipped tree such as ${
    PROTECTED_WALK_SKIPS[0]
  }, or below a symlink), so a confined command may have planted or written it: check it and commit by hand`;
}

/** True when one of `a` and `b` (canonical) lies in the other. */
function overlap(a: string, b: string): boolean {
  return isBeneath(a, b) || isBeneath(b, a);
}

/** The claims of the commits in progress in this process (see {@linkcode CommitClaim}). */
const CLAIMS = new Set<CommitClaim>();

/**
 * What a commit on the host relies on while it runs (a repository's working
 * tree and git folders, the config files it includes, the `git` program):
 * its checks are a snapshot, so no confined call that could write one of
 * them may run meanwhile. A claim is refused while a call of this process
 * whose writable roots overlap a path still runs (from launch until its
 * last sweep), and while it is held, such a call is refused at launch
 * (`ProtectedPaths.watch`). Calls of other processes are not seen.
 */
export class CommitClaim implements Disposable {
  readonly #paths: string[] = [];

  constructor() {
    CLAIMS.add(this);
  }

  /** The paths claimed so far. */
  get paths(): readonly string[] {
    return this.#paths;
  }

  /**
   * Claims `paths` (canonical), or returns why not: a confined call still
   * running can write one of them (then none is claimed).
   */
  claim(paths: readonly string[]): string | undefined {
    for (const ref of LIVE) {
      const guard = ref.deref();
      if (guard === undefined) {
        LIVE.delete(ref);
        continue;
      }
      for (const path of paths) {
        const root = guard.roots.find((root) => overlap(path, root));
        if (root !== undefined) {
          return `a confined command still running can write "${root}", so it could plant or change "${path}" while git runs (the checks are a snapshot): stop it (task_kill) or let it end, then retry`;
        }
      }
    }
    this.#paths.push(...paths);
    return undefined;
  }

  /** Gives the paths up: confined calls may write them again. */
  [Symbol.dispose](): void {
    CLAIMS.delete(this);
  }
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

/**
 * The protected paths of one call: planned at launch, swept when the call
 * ends (and, for a background command, at each read).
 */
export class ProtectedPaths {
  readonly #roots: readonly string[];
  readonly #names: readonly string[];
  readonly #skipped: ReadonlySet<string>;
  readonly #quarantine: () => string;
  readonly #watched = new Map<string, Shape>();
  /** The protected directories found at launch (`dev:ino`), wherever they are moved. */
  readonly #directories = new Set<string>();
  readonly #unmovable = new Set<string>();
  readonly #violations: SandboxViolation[] = [];
  readonly #unwalked: ProtectionPlan["unwalked"] = [];
  /** The entry names of every directory the launch's walk listed. */
  readonly #listings = new Map<string, Set<string>>();
  #moved = 0;
  /** When the launch's walk began (ms since the epoch): what changed since, a command may have made. */
  readonly #launchedAt = Date.now();
  #live: WeakRef<ProtectedPaths> | undefined;
  /** The global git config files, with what they include: read once, at the first repository. */
  #global: ExpandedConfig | undefined;
  /** What to bind read-only, and where the walk stopped. */
  readonly plan: ProtectionPlan;

  /**
   * Walks the writable `roots` (canonical, existing) for the protected
   * `names`; `quarantine` gives the directory (out of every writable root)
   * that receives what a command planted; the walks never enter `skipped`
   * (executors' private folders that lie in a root: no command writes there).
   */
  constructor(
    roots: readonly string[],
    names: readonly string[],
    quarantine: () => string,
    skipped: readonly string[] = [],
  ) {
    this.#roots = roots;
    this.#names = names;
    this.#skipped = new Set(skipped);
    this.#quarantine = quarantine;
    const readOnly = new Set<string>();
    const unwalked: ProtectionPlan["unwalked"] = [];
    for (const root of roots) {
      // A missing path at a root is watched too: it is the one git finds first.
      for (const name of names) this.#watched.set(join(root, name), ABSENT);
      const bound = walk(root, names, this.#skipped, {
        found: (location) => this.#protect(location, readOnly),
        listed: (dir, entries) => this.#listings.set(dir, new Set(entries)),
        unlisted: (dir) => unwalked.push({ root: dir, bound: "unlisted" }),
      });
      if (bound !== undefined) unwalked.push({ root, bound });
    }
    // The user's global git config (and what it includes) is obeyed by git in
    // every repository, wherever it lies: protected with `.gitconfig`.
    if (names.includes(".gitconfig")) {
      const global = this.#globalConfig();
      for (const file of [...global.files, ...global.included]) this.#target(file, readOnly, 0);
    }
    for (const shape of this.#watched.values()) {
      if (shape.kind === "directory") this.#directories.add(`${shape.dev}:${shape.ino}`);
    }
    const depth = (path: string): number => path.split("/").length;
    const sorted = [...readOnly].sort((a, b) => depth(a) - depth(b));
    this.plan = {
      readOnly: sorted.filter((path) =>
        !sorted.some((other) => other !== path && isBeneath(path, other))
      ),
      unwalked,
    };
    this.#unwalked.push(...unwalked);
  }

  /**
   * Counts this guard among the calls still running (see
   * {@linkcode CommitClaim}) until `settle()`; throws `BashSpawnError` while
   * a commit in progress holds a path in its roots (the call must not start).
   */
  watch(): void {
    for (const claim of CLAIMS) {
      for (const path of claim.paths) {
        const root = this.#roots.find((root) => overlap(path, root));
        if (root === undefined) continue;
        throw new BashSpawnError(
          `A commit (gitCommit) is in progress on "${path}", which the writable root "${root}" holds, and its checks must hold until it ends, so the command was not run; retry it once the commit returned`,
        );
      }
    }
    this.#live ??= new WeakRef(this);
    LIVE.add(this.#live);
  }

  /** Sweeps one last time (the call has ended) and stops counting it as running. */
  settle(): SandboxViolation[] {
    const violations = this.sweep();
    if (this.#live !== undefined) LIVE.delete(this.#live);
    return violations;
  }

  /** The writable roots this call protects. */
  get roots(): readonly string[] {
    return this.#roots;
  }

  /** How many violations this call's sweeps found so far. */
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
    const seen = new Set<string>(this.#watched.keys());
    const hidden: string[] = [];
    const stopped = (root: string, bound: ProtectionPlan["unwalked"][number]["bound"]) => {
      const known = this.#unwalked.some((u) => u.root === root && u.bound === bound);
      if (!known) this.#unwalked.push({ root, bound });
    };
    for (const root of this.#roots) {
      const bound = walk(root, this.#names, this.#skipped, {
        found: (location) => seen.add(location),
        unlisted: (dir) => hidden.push(dir),
      });
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
      const to = this.#move(dir);
      if (to === null) {
        stopped(dir, "unlisted");
        continue;
      }
      this.#violations.push({ path: dir, quarantinedTo: to, unlisted: true });
      openUp(to, PROTECTED_WALK_ENTRIES);
    }
    for (const found of seen) {
      const path = this.#located(found);
      if (path === undefined) continue;
      const before = this.#watched.get(path) ?? ABSENT;
      const now = shapeOf(path);
      if (sameShape(before, now)) continue;
      // A protected directory that a command moved (renaming its parent) is
      // the user's, bound read-only all along. A moved file or symlink is not
      // kept: its relative pointer would now lead elsewhere.
      if (now.kind === "directory" && this.#directories.has(`${now.dev}:${now.ino}`)) {
        this.#watched.set(path, now);
        continue;
      }
      if (now.kind !== "absent") {
        const to = this.#move(path);
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
      this.#watched.set(path, shapeOf(path));
    }
    return [...this.#violations];
  }

  /**
   * Looks, with no bound, below `root`, whose walk stopped at `bound`, for the
   * protected names past it, and adds to `seen` (so the sweep moves them
   * away) each one a command may have made during the call: when the
   * launch's walk of `root` met no bound, one it did not find; else one
   * whose inode changed since the launch (its ctime, which creating,
   * renaming or changing an entry sets and no command can set back). The
   * others, there before the call, are watched from now on. The first time a
   * sweep meets a bound the launch did not (a command filled or nested the
   * root past it), that is a violation of its own.
   */
  #pastBound(root: string, bound: "depth" | "entries", seen: Set<string>): void {
    const atLaunch = this.plan.unwalked.some((u) => u.root === root && u.bound !== "unlisted");
    if (!this.plan.unwalked.some((u) => u.root === root && u.bound === bound)) {
      const known = this.#violations.some((v) => v.path === root && v.walkBound === bound);
      if (!known) this.#violations.push({ path: root, quarantinedTo: null, walkBound: bound });
    }
    walk(root, this.#names, this.#skipped, {
      found: (found) => {
        const path = this.#located(found);
        if (seen.has(found) || path === undefined || this.#watched.has(path)) {
          seen.add(found);
          return;
        }
        if (!atLaunch || this.#changedSinceLaunch(path)) seen.add(found);
        else this.#watched.set(path, shapeOf(path));
      },
    }, false);
  }

  /**
   * Whether the inode at `path` was made, renamed or changed since the
   * launch. The kernel stamps ctime from a clock that may lag by a tick, and
   * Deno reports it in whole seconds: what changed in the launch's second
   * (or the tick before) counts too.
   */
  #changedSinceLaunch(path: string): boolean {
    const since = Math.floor((this.#launchedAt - CLOCK_TICK_MS) / 1000) * 1000;
    try {
      return lstatSync(path).ctimeMs >= since;
    } catch (error) {
      // Gone: nothing to move. Any other failure cannot prove the path old, so it counts as new.
      return (error as NodeJS.ErrnoException | null)?.code !== "ENOENT";
    }
  }

  /** The global git config files, expanded (see `repositoryGitConfig`). */
  #globalConfig(): ExpandedConfig {
    this.#global ??= expandedConfig(globalGitConfigFiles());
    return this.#global;
  }

  /** Records `location` (found by the walk, existing) and what protecting it needs. */
  #protect(found: string, readOnly: Set<string>): void {
    const location = this.#located(found);
    if (location === undefined) return;
    const shape = shapeOf(location);
    this.#watched.set(location, shape);
    if (basename(location) === ".git") {
      const config = repositoryGitConfig(location, this.#globalConfig());
      for (const path of [...config.hooksPaths, ...config.files]) this.#target(path, readOnly, 0);
    }
    if (shape.kind === "directory" || shape.kind === "file") {
      readOnly.add(location);
      this.#follow(location, shape.kind, readOnly, 0);
      return;
    }
    if (shape.kind !== "symlink") return;
    // The link itself cannot be bound (a mount follows it): its target can,
    // and the link is put back if a command replaces it.
    const target = existingRealpath(location) ??
      (shape.link === undefined ? undefined : resolve(dirname(location), shape.link));
    if (target !== undefined) this.#target(target, readOnly, 0);
  }

  /**
   * A pointer target: protected like the path itself when it lies in a
   * writable root; a missing one is watched, so that what a command creates
   * there (for git to find through the pointer) is moved away.
   */
  #target(path: string, readOnly: Set<string>, hops: number): void {
    const target = canonicalPath(path);
    if (hops > 4 || !this.#roots.some((root) => isBeneath(target, root))) return;
    if (this.#roots.includes(target)) return;
    const shape = shapeOf(target);
    if (shape.kind === "absent" && !this.#watched.has(target)) this.#watched.set(target, ABSENT);
    if (shape.kind !== "directory" && shape.kind !== "file") return;
    this.#watched.set(target, shape);
    readOnly.add(target);
    this.#follow(target, shape.kind, readOnly, hops + 1);
  }

  /**
   * Follows git's pointers: a `gitdir: <dir>` file names the repository, whose
   * `commondir` file names the main repository of a linked worktree.
   */
  #follow(path: string, kind: "directory" | "file", readOnly: Set<string>, hops: number): void {
    const pointer = kind === "file" ? path : join(path, "commondir");
    const text = readPointer(pointer);
    if (text === undefined) return;
    const named = kind === "file" ? /^gitdir:\s*(.+)$/m.exec(text)?.[1] : text.split("\n")[0];
    if (named === undefined || named.trim() === "") return;
    this.#target(resolve(dirname(pointer), named.trim()), readOnly, hops);
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
      const listing = this.#listings.get(parent);
      if (listing !== undefined) return !listing.has(basename(child));
      if (this.#roots.includes(parent)) return false;
    }
    return false;
  }

  /**
   * Where `path` really is (a protected name with more than one part may
   * pass through a symlink), when that lies in a writable root below real
   * directories only; undefined otherwise (nothing there is protected).
   */
  #located(path: string): string | undefined {
    const parent = existingRealpath(dirname(path));
    if (parent === undefined) return undefined;
    const real = join(parent, basename(path));
    return this.#realParents(real) ? real : undefined;
  }

  /** True when every directory from its root down to `path`'s parent is a real directory. */
  #realParents(path: string): boolean {
    const root = this.#roots.find((root) => isBeneath(path, root) && path !== root);
    if (root === undefined) return false;
    let current = root;
    for (const part of relative(root, dirname(path)).split("/").filter((p) => p !== "")) {
      current = join(current, part);
      if (shapeOf(current).kind !== "directory") return false;
    }
    return true;
  }

  /**
   * Renames `path` (never following it: a planted symlink moves as the link)
   * into the quarantine; across file systems, to an inert name beside it.
   * Returns where it went, or null when it could not be moved.
   */
  #move(path: string): string | null {
    // Unique across the calls that share the quarantine: a rename replaces a file.
    const name = `${crypto.randomUUID().slice(0, 8)}-${++this.#moved}-${basename(path)}`;
    try {
      const dir = this.#quarantine();
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const to = join(dir, name);
      renameSync(path, to);
      return to;
    } catch (error) {
      if ((error as { code?: string }).code !== "EXDEV") return null;
    }
    const beside = `${path}.shellseam-quarantine-${crypto.randomUUID().slice(0, 8)}`;
    try {
      renameSync(path, beside);
      return beside;
    } catch {
      return null;
    }
  }
}

/** What a walk reports as it goes. */
interface WalkVisitor {
  /** A protected location that exists. */
  found(location: string): void;
  /** A directory it listed, with the names of its entries. */
  listed?(dir: string, entries: string[]): void;
  /** A directory it could not list (its protected names were still looked up). */
  unlisted?(dir: string): void;
}

/**
 * Breadth first below `root` (never through a symlink, never into a protected
 * path, a skipped tree nor a `skipped` folder), tells `visitor` each protected location that
 * exists and each directory it listed or could not. Returns the bound it
 * stopped at, if it did; with `bounded` false it has none.
 */
function walk(
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

/**
 * Gives the owner every right on `dir` (a directory a command made and left
 * unreadable) and, past it, on the directories below it up to `entries`
 * entries: in the quarantine, where no confined command can write, the tree
 * holds still, and disposal must be able to remove it.
 */
function openUp(dir: string, entries: number): void {
  const stack = [dir];
  for (let seen = 0; stack.length > 0;) {
    const current = stack.pop()!;
    try {
      if (shapeOf(current).kind !== "directory") continue;
      chmodSync(current, 0o700);
      if (seen >= entries) continue;
      const listing = runtime.readDirectory(current);
      seen += listing.length;
      for (const entry of listing) if (entry.isDirectory) stack.push(join(current, entry.name));
    } catch {
      // What cannot be opened up stays; disposal says so.
    }
  }
}

/**
 * How deep git follows includes (a deeper one stops git with an error,
 * before it reads any config): includes are followed as far, and no
 * further.
 */
const INCLUDE_DEPTH = 10;

/** One setting of a git config file, with the folder of the file it is in. */
interface ConfigSetting {
  /** The section, lower case (`core`, `includeif`). */
  section: string;
  /** The subsection as written (`[includeIf "gitdir:/x/"]`), if any. */
  subsection: string | undefined;
  /** The key, lower case. */
  key: string;
  /** The value: comments and quotes removed, escapes undone. */
  value: string;
  /** The (canonical) folder of the file it was read from: where its relative paths start. */
  dir: string;
}

/**
 * What git reads for the repository whose `.git` is `location`, beyond the
 * repository's own files: the user's global and the system config files
 * (see {@linkcode globalGitConfigFiles}), every file those and the
 * repository's `config`/`config.worktree` include (`include.path`,
 * `includeIf.<condition>.path` whatever the condition; includes of includes
 * too, as deep as git goes), and where `core.hooksPath` may send its hooks
 * (every value set in any of them, whichever wins: an `includeIf` condition
 * can change; absolute, relative paths taken from the working tree as git
 * does, `~/` from `HOME`).
 */
export interface RepositoryGitConfig {
  /** The folders `core.hooksPath` names. */
  hooksPaths: string[];
  /** Every config file git may read besides the repository's own (absolute; existing or not). */
  files: string[];
}

/**
 * The config git reads for the repository whose `.git` is `location` (see
 * {@linkcode RepositoryGitConfig}), read by our own parser: git is never run.
 * `global` is the expansion of the global config files, when known.
 */
export function repositoryGitConfig(
  location: string,
  global: ExpandedConfig = expandedConfig(globalGitConfigFiles()),
): RepositoryGitConfig {
  const own = expandedConfig(repositoryConfigFiles(location));
  const hooksPaths: string[] = [];
  for (const { section, subsection, key, value } of [...global.settings, ...own.settings]) {
    if (section !== "core" || subsection !== undefined || key !== "hookspath" || value === "") {
      continue;
    }
    const path = value.startsWith("~/") ? homePath(value) : resolve(dirname(location), value);
    if (path !== undefined && !hooksPaths.includes(path)) hooksPaths.push(path);
  }
  const files = [...global.files, ...global.included, ...own.included];
  return { hooksPaths, files: [...new Set(files)] };
}

/**
 * The global and system config files the user's git reads wherever it runs
 * (existing or not): `/etc/gitconfig`, `$GIT_CONFIG_GLOBAL`,
 * `$XDG_CONFIG_HOME/git/config` (`~/.config/git/config` without it) and
 * `~/.gitconfig`, as this process's environment names them.
 */
export function globalGitConfigFiles(): string[] {
  const { GIT_CONFIG_GLOBAL, XDG_CONFIG_HOME, HOME } = process.env;
  const files = ["/etc/gitconfig"];
  if (GIT_CONFIG_GLOBAL && isAbsolute(GIT_CONFIG_GLOBAL)) files.push(GIT_CONFIG_GLOBAL);
  const xdg = XDG_CONFIG_HOME && isAbsolute(XDG_CONFIG_HOME)
    ? XDG_CONFIG_HOME
    : HOME
    ? join(HOME, ".config")
    : undefined;
  if (xdg !== undefined) files.push(join(xdg, "git", "config"));
  if (HOME) files.push(join(HOME, ".gitconfig"));
  return files;
}

/** `~/<rest>` from `HOME`, or undefined without one. */
function homePath(value: string): string | undefined {
  const home = process.env.HOME;
  return home ? join(home, value.slice(2)) : undefined;
}

/** Config files read in order, with what they include in place. */
export interface ExpandedConfig {
  /** The files read first (given, existing or not). */
  files: string[];
  /** Every file an include named, in the order met (existing or not, each once). */
  included: string[];
  /** Every setting, an included file's where its include stands. */
  settings: ConfigSetting[];
}

/**
 * The settings of the config `files`, in order, each include followed where
 * it stands (includes of includes too, up to git's depth; a file already
 * being read is not read again, so a cycle ends).
 */
export function expandedConfig(files: readonly string[]): ExpandedConfig {
  const out: ExpandedConfig = { files: [...files], included: [], settings: [] };
  const read = (file: string, depth: number, reading: Set<string>) => {
    const real = existingRealpath(file);
    if (real === undefined || reading.has(real)) return;
    const text = readPointer(real, CONFIG_BYTES);
    if (text === undefined) return;
    reading.add(real);
    for (const setting of configSettings(text, dirname(real))) {
      out.settings.push(setting);
      const include = setting.key === "path" && setting.value !== "" &&
        (setting.section === "include" ||
          (setting.section === "includeif" && setting.subsection !== undefined));
      if (!include) continue;
      const named = setting.value.startsWith("~/")
        ? homePath(setting.value)
        : resolve(setting.dir, setting.value);
      if (named === undefined) continue;
      if (!out.included.includes(named)) out.included.push(named);
      if (depth < INCLUDE_DEPTH) read(named, depth + 1, reading);
    }
    reading.delete(real);
  };
  for (const file of files) read(file, 0, new Set());
  return out;
}

/**
 * The config files of the repository whose `.git` is `location` (`config`
 * and `config.worktree`, a linked worktree's main repository's first).
 */
function repositoryConfigFiles(location: string): string[] {
  const dirs: string[] = [];
  const gitdir = existingRealpath(location);
  if (gitdir === undefined) return [];
  if (shapeOf(gitdir).kind === "directory") dirs.push(gitdir);
  else {
    const named = /^gitdir:\s*(.+)$/m.exec(readPointer(gitdir) ?? "")?.[1]?.trim();
    if (named) dirs.push(resolve(dirname(location), named));
  }
  const common = dirs[0] && readPointer(join(dirs[0], "commondir"))?.split("\n")[0]?.trim();
  if (common) dirs.unshift(resolve(dirs[0]!, common));
  return dirs.flatMap((dir) => [join(dir, "config"), join(dir, "config.worktree")]);
}

/**
 * The last value of `section.key` (both lower case, no subsection) in the
 * text of a git config file.
 */
export function configValue(text: string, section: string, key: string): string | undefined {
  return configSettings(text, "/").findLast((setting) =>
    setting.section === section && setting.subsection === undefined && setting.key === key
  )?.value;
}

/**
 * The settings of the text of a git config file read from `dir`, in order:
 * comments and quotes removed, `\\`, `\"`, `\t` and `\n` unescaped, a value
 * whose line ends in `\` continued on the next; a key without `=` (a
 * boolean) has the value "true".
 */
function configSettings(text: string, dir: string): ConfigSetting[] {
  let section = "";
  let subsection: string | undefined;
  const settings: ConfigSetting[] = [];
  const lines = text.split("\n");
  for (let at = 0; at < lines.length; at++) {
    let line = lines[at]!.trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\](.*)$/.exec(line);
    if (header) {
      section = header[1]!.toLowerCase();
      subsection = header[2]?.replace(/\\(.)/g, "$1");
      line = header[3]!.trim();
    }
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!entry || section === "") continue;
    let value = "";
    let quoted = false;
    let rest = entry[2] ?? "";
    for (let i = 0; i < rest.length; i++) {
      const c = rest[i]!;
      if (c === "\\" && i + 1 === rest.length && at + 1 < lines.length) {
        // A backslash ending the line: the value goes on in the next one.
        rest += lines[++at]!;
      } else if (c === "\\" && i + 1 < rest.length) {
        const next = rest[++i]!;
        value += next === "t" ? "\t" : next === "n" ? "\n" : next;
      } else if (c === '"') quoted = !quoted;
      else if (!quoted && (c === "#" || c === ";")) break;
      else value += c;
    }
    settings.push({
      section,
      subsection,
      key: entry[1]!.toLowerCase(),
      value: entry[2] === undefined ? "true" : value.trim(),
      dir,
    });
  }
  return settings;
}

/** The start of a small regular file, read without following a symlink nor blocking on a FIFO. */
function readPointer(path: string, maxBytes = POINTER_BYTES): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return undefined;
    // No bigger than the file: a config's bound is far above what most hold.
    const bytes = new Uint8Array(Math.min(stat.size, maxBytes));
    const read = bytes.length === 0 ? 0 : readSync(fd, bytes, 0, bytes.length, 0);
    return new TextDecoder().decode(bytes.subarray(0, read));
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * What protecting `names` leaves open under `workspace-write` on every
 * backend: the time a command runs (a missing path cannot be refused without
 * a mount point on the host), and the parts of the writable roots the walk
 * did not reach.
 */
export function protectionGaps(
  names: readonly string[],
  unwalked: ProtectionPlan["unwalked"] = [],
): string[] {
  if (names.length === 0) return [];
  const list = names.map((name) => `\`${name}\``).join(", ");
  return [
    `a missing or symlinked protected path (${list}) can be created or replaced while a command ` +
    "runs; it is moved to the executor's quarantine when the command ends (a background " +
    "command: when it settles, and at each read)",
    ...unwalked.map(({ root, bound }) =>
      bound === "unlisted"
        ? `nested protected paths below ${root} are neither bound read-only nor checked: it cannot be listed`
        : `nested protected paths below ${root} past the walk's ${
          bound === "depth"
            ? `${PROTECTED_WALK_DEPTH} directories deep`
            : `${PROTECTED_WALK_ENTRIES} entries`
        } are neither bound read-only nor checked`
    ),
  ];
}
