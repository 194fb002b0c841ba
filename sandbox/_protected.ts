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
import { basename, dirname, join, relative, resolve } from "node:path";
import type { SandboxViolation } from "../seam/mod.ts";
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
 * it is collected).
 */
const LIVE = new Set<WeakRef<ProtectedPaths>>();

/**
 * Why a confined command could write `path` (canonical; a repository's
 * `.git` or git directory) now or could have planted it, or undefined when
 * it cannot: a walk of `workspace` as a call's launch makes would bind it
 * read-only (so it is not past the walk's bounds nor in a skipped tree),
 * and every call of this process still running saw it there at its launch
 * and bound it read-only (a command still running may have planted or
 * replaced it since, and its sweep has not run yet). A path outside every
 * root is not judged.
 */
export function unprotectedReason(path: string, workspace: string): string | undefined {
  if (isBeneath(path, workspace)) {
    const fresh = new ProtectedPaths([workspace], [".git"], () => workspace);
    if (!fresh.plan.readOnly.some((bound) => isBeneath(path, bound))) {
      return `the sandbox does not keep "${path}" read-only (it lies past the walk's ${PROTECTED_WALK_DEPTH} levels or ${PROTECTED_WALK_ENTRIES} entries, in a skipped tree such as ${
        PROTECTED_WALK_SKIPS[0]
      }, or below a symlink), so a confined command may have planted or written it: check it and commit by hand`;
    }
  }
  for (const ref of LIVE) {
    const guard = ref.deref();
    if (guard === undefined) {
      LIVE.delete(ref);
      continue;
    }
    if (!guard.keptReadOnly(path)) {
      return `a confined command still running may have planted or replaced "${path}" (it was not there, read-only, when that command started): stop it (task_kill) or let it end, then retry`;
    }
  }
  return undefined;
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
  #live: WeakRef<ProtectedPaths> | undefined;
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
   * `unprotectedReason`) until `settle()`.
   */
  watch(): void {
    this.#live ??= new WeakRef(this);
    LIVE.add(this.#live);
  }

  /** Sweeps one last time (the call has ended) and stops counting it as running. */
  settle(): SandboxViolation[] {
    const violations = this.sweep();
    if (this.#live !== undefined) LIVE.delete(this.#live);
    return violations;
  }

  /**
   * False when `path` lies in one of this call's roots but not below what it
   * bound read-only at launch, or what it bound there has been replaced.
   */
  keptReadOnly(path: string): boolean {
    if (!this.#roots.some((root) => isBeneath(path, root))) return true;
    const bound = this.plan.readOnly.find((bound) => isBeneath(path, bound));
    const seen = bound === undefined ? undefined : this.#watched.get(bound);
    return seen !== undefined && sameShape(seen, shapeOf(bound!));
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
      if (bound !== undefined) stopped(root, bound);
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

  /** Records `location` (found by the walk, existing) and what protecting it needs. */
  #protect(found: string, readOnly: Set<string>): void {
    const location = this.#located(found);
    if (location === undefined) return;
    const shape = shapeOf(location);
    this.#watched.set(location, shape);
    if (basename(location) === ".git") {
      const hooks = hooksPathOf(location);
      if (hooks !== undefined) this.#target(hooks, readOnly, 0);
      for (const included of includedConfigsOf(location)) this.#target(included, readOnly, 0);
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
 * stopped at, if it did.
 */
function walk(
  root: string,
  names: readonly string[],
  skipped: ReadonlySet<string>,
  visitor: WalkVisitor,
): "depth" | "entries" | undefined {
  // The names by their first part, the one a directory listing shows.
  const byFirst = new Map<string, string[]>();
  for (const name of names) {
    const first = name.split("/")[0]!;
    byFirst.set(first, [...byFirst.get(first) ?? [], name]);
  }
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
        const named = byFirst.get(entry.name);
        if (named !== undefined) {
          for (const name of named) {
            const location = join(dir, name);
            if (name.includes("/") && shapeOf(location).kind === "absent") continue;
            visitor.found(location);
          }
        } else if (entry.isDirectory && !PROTECTED_WALK_SKIPS.includes(entry.name)) {
          subdirectories.push(entry.name);
        }
      }
      if (entries > PROTECTED_WALK_ENTRIES) return "entries";
      if (subdirectories.length > 0 && depth >= PROTECTED_WALK_DEPTH) stopped = "depth";
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
 * Where the hooks of the repository whose `.git` is `location` live, when its
 * configuration moves them (`core.hooksPath`, read from its `config` and
 * `config.worktree` and those of a linked worktree's main repository; the
 * last one set wins, and files they include are not read): absolute,
 * relative paths taken from the working tree as git does, `~/` from `HOME`.
 */
export function hooksPathOf(location: string): string | undefined {
  let hooks: string | undefined;
  for (const { text } of repositoryConfigs(location)) {
    hooks = configValue(text, "core", "hookspath") ?? hooks;
  }
  if (hooks === undefined || hooks === "") return undefined;
  if (hooks.startsWith("~/")) {
    const home = process.env.HOME;
    return home ? join(home, hooks.slice(2)) : undefined;
  }
  return resolve(dirname(location), hooks);
}

/**
 * The files that the config of the repository whose `.git` is `location`
 * includes (`include.path`, and `includeIf.<condition>.path` whatever the
 * condition), one level deep: git reads them as its own config, so one a
 * command could write is as good as a writable `.git/config`. Relative paths
 * are taken from the including file's folder, `~/` from `HOME`.
 */
export function includedConfigsOf(location: string): string[] {
  const files: string[] = [];
  for (const { text, dir } of repositoryConfigs(location)) {
    for (const section of ["include", "includeif"]) {
      for (const value of configValues(text, section, "path", section === "includeif")) {
        if (value === "") continue;
        if (!value.startsWith("~/")) files.push(resolve(dir, value));
        else if (process.env.HOME) files.push(join(process.env.HOME, value.slice(2)));
      }
    }
  }
  return files;
}

/**
 * The texts of the config files of the repository whose `.git` is
 * `location` (`config` and `config.worktree`, a linked worktree's main
 * repository's first), with the folder each lies in.
 */
function repositoryConfigs(location: string): { text: string; dir: string }[] {
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
  const configs: { text: string; dir: string }[] = [];
  for (const dir of dirs) {
    for (const file of ["config", "config.worktree"]) {
      const text = readPointer(join(dir, file), CONFIG_BYTES);
      if (text !== undefined) configs.push({ text, dir });
    }
  }
  return configs;
}

/**
 * The last value of `section.key` (both lower case, no subsection) in the
 * text of a git config file: comments and quotes removed, `\\`, `\"`, `\t`
 * and `\n` unescaped.
 */
export function configValue(text: string, section: string, key: string): string | undefined {
  return configValues(text, section, key).at(-1);
}

/**
 * Every value of `section.key` (both lower case) in the text of a git
 * config file, in order: without a subsection, or with any when
 * `anySubsection` (`[includeIf "gitdir:..."]`).
 */
function configValues(
  text: string,
  section: string,
  key: string,
  anySubsection = false,
): string[] {
  let current = "";
  const values: string[] = [];
  for (const raw of text.split("\n")) {
    let line = raw.trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)(\s+"[^"]*")?\s*\](.*)$/.exec(line);
    if (header) {
      current = header[2] === undefined || anySubsection ? header[1]!.toLowerCase() : "";
      line = header[3]!.trim();
    }
    if (current !== section) continue;
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*)$/.exec(line);
    if (!entry || entry[1]!.toLowerCase() !== key) continue;
    let out = "";
    let quoted = false;
    const rest = entry[2]!;
    for (let i = 0; i < rest.length; i++) {
      const c = rest[i]!;
      if (c === "\\" && i + 1 < rest.length) {
        const next = rest[++i]!;
        out += next === "t" ? "\t" : next === "n" ? "\n" : next;
      } else if (c === '"') quoted = !quoted;
      else if (!quoted && (c === "#" || c === ";")) break;
      else out += c;
    }
    values.push(out.trim());
  }
  return values;
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
    if (!fstatSync(fd).isFile()) return undefined;
    const bytes = new Uint8Array(maxBytes);
    const read = readSync(fd, bytes, 0, maxBytes, 0);
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
