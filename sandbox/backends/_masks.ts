/**
 * What a confined command must not reach inside a filesystem it may read:
 * the `denyRead` paths (less their `allowRead` carve-outs) and, under network
 * `deny` with an `allowUnixSockets` list, every other Unix socket bound in
 * the filesystem. Both backends cover each such path, read-only, with an
 * empty mode-000 tmpfs (a directory) or an empty mode-000 file from the
 * executor's private directory, so a read, a listing or a connect
 * there fails with "Permission denied" (not "No such file or directory": a
 * model must not think the file is missing), for root too, since neither
 * backend leaves a command the capability that overrides file modes.
 *
 * @module
 */
import { chmodSync, linkSync, lstatSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, normalize, resolve } from "node:path";
import { BashConfigError, BashSpawnError } from "../../seam/mod.ts";
import { messageOf } from "../../seam/message.ts";
import { existingRealpath, folderNames, isBeneath } from "../../engine/mod.ts";

/**
 * A policy's list of paths (`denyRead`, `allowRead`, `allowUnixSockets`),
 * checked and normalised: each absolute or `~/`-relative (`~` alone is the
 * home itself). Throws `BashConfigError` for anything else.
 */
export function checkedPolicyPaths(field: string, value: unknown): string[] {
  if (!Array.isArray(value)) {
    throw new BashConfigError(
      `"${field}" must be a list of absolute or "~/" paths; got ${
        JSON.stringify(value)
      }; pass an array such as ["~/.ssh"]`,
    );
  }
  return [
    ...new Set(value.map((path: unknown) => {
      if (typeof path === "string" && !path.includes("\0")) {
        if (isAbsolute(path)) return resolve(path);
        if (path === "~" || path.startsWith("~/")) {
          const rest = normalize(`${path.slice(2)}/`).replace(/\/+$/, "");
          if (rest === "" || rest === ".") return "~";
          if (rest !== ".." && !rest.startsWith("../")) return `~/${rest}`;
        }
      }
      throw new BashConfigError(
        `"${field}" entry ${
          JSON.stringify(path)
        } is neither an absolute path nor a "~/" path inside the home; pass one of those`,
      );
    })),
  ];
}

/** `path` with a leading `~` replaced by `home`. */
export function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  return path.startsWith("~/") ? resolve(home, path.slice(2)) : path;
}

/** What a path is masked for: a read of a secret, or a connection to a Unix socket. */
export type MaskKind = "secret" | "socket";

/** One path covered by an empty mode-000 directory or file (canonical, existing at launch). */
export interface Mask {
  path: string;
  /** Whether the path is a directory (it then gets an empty tmpfs). */
  directory: boolean;
  kind: MaskKind;
}

/**
 * What {@linkcode secretMasks} asks of the filesystem that the command will
 * see: this machine's ({@linkcode LOCAL_MASK_FS}), or another host's, as a
 * probe there found it.
 */
export interface MaskFs {
  /** The canonical path when it exists, else undefined. */
  realpath(path: string): string | undefined;
  /** Whether the (canonical) path is a directory; undefined when it does not exist. */
  isDirectory(path: string): boolean | undefined;
  /** The names in a directory; throws when it cannot be listed. */
  list(path: string): readonly string[];
}

/** This machine's filesystem. */
export const LOCAL_MASK_FS: MaskFs = {
  realpath: existingRealpath,
  isDirectory(path) {
    try {
      return lstatSync(path).isDirectory();
    } catch {
      return undefined;
    }
  },
  list: folderNames,
};

/**
 * A test that a path is absent from `fs`, answered from the listings of its
 * folders (each listed once): most denied paths do not exist, and a listing costs
 * far less than a failed resolve for each of them. A folder that cannot be
 * listed (a refused permission among other reasons) answers "not known
 * absent", and the caller resolves the path itself as before.
 */
function absentByListing(fs: MaskFs): (path: string) => boolean {
  const listings = new Map<string, Set<string> | null>();
  const absent = (path: string): boolean => {
    const parent = dirname(path);
    if (parent === path || !isAbsolute(path)) return false;
    if (absent(parent)) return true;
    let names = listings.get(parent);
    if (names === undefined) {
      try {
        names = new Set(fs.list(parent));
      } catch {
        names = null;
      }
      listings.set(parent, names);
    }
    return names !== null && !names.has(basename(path));
  };
  return absent;
}

/**
 * The masks for `denyRead` less `allowRead` (`~` standing for `home`). A
 * denied path that does not exist at launch is not masked: nothing there can
 * be read yet (one created during the call stays readable to that call). A
 * denied folder with an allowed path beneath it is masked entry by entry,
 * down to the allowed paths, so they stay reachable; `keep` (the workspace
 * and writable roots, which the policy grants outright) are carved out the
 * same way. An allowed or kept path that holds a denied one does not carve
 * it. Symlinks are followed: what a denied path names is denied. `fs` is
 * the filesystem the command will see (another host's for a remote sandbox).
 */
export function secretMasks(
  denyRead: readonly string[],
  allowRead: readonly string[],
  home: string,
  keep: readonly string[],
  fs: MaskFs = LOCAL_MASK_FS,
): Mask[] {
  const allowed = [
    ...allowRead.flatMap((path) => fs.realpath(expandHome(path, home)) ?? []),
    ...keep,
  ];
  const masks: Mask[] = [];
  const visit = (path: string, carved: string[]): void => {
    if (carved.some((kept) => isBeneath(path, kept))) return;
    const inside = carved.filter((kept) => isBeneath(kept, path));
    const directory = fs.isDirectory(path);
    if (directory === undefined) return;
    const mask: Mask = { path, directory, kind: "secret" };
    if (inside.length === 0 || !mask.directory) {
      masks.push(mask);
      return;
    }
    let names: readonly string[];
    try {
      names = fs.list(path);
    } catch (error) {
      throw new BashSpawnError(
        `Cannot list "${path}" to carve the allowed paths out of it (${
          messageOf(error)
        }), so nothing was run; fix its permissions or drop the allowRead entries beneath it`,
        { cause: error },
      );
    }
    for (const name of names) {
      const child = fs.realpath(join(path, name));
      if (child !== undefined) visit(child, inside);
    }
  };
  // Only what lies beneath a denied path carves it: an allowed or kept path
  // around it (a workspace that is the home, say) leaves it denied.
  const absent = absentByListing(fs);
  for (const path of denyRead) {
    // Normal form first: "." and ".." never appear in a folder's listing.
    const expanded = normalize(expandHome(path, home));
    if (absent(expanded)) continue;
    const real = fs.realpath(expanded);
    if (real !== undefined) visit(real, allowed.filter((kept) => isBeneath(kept, real)));
  }
  return outermost(masks);
}

/** `masks` without duplicates and without those beneath another (already hidden). */
export function outermost(masks: Mask[]): Mask[] {
  const unique = [...new Map(masks.map((mask) => [mask.path, mask])).values()];
  return unique.filter((mask) =>
    !unique.some((other) => other !== mask && isBeneath(mask.path, other.path))
  );
}

/** Where the kernel lists the Unix sockets of this network namespace. */
const PROC_NET_UNIX = "/proc/net/unix";

/**
 * The masks for every Unix socket bound in the filesystem at launch (as
 * `/proc/net/unix` lists it, by absolute path) except `allowed` (`~` standing
 * for `home`): sockets, or folders whose sockets below them all stay
 * reachable (as sandbox-runtime reads them). Throws `BashSpawnError` when the list cannot be read (Deno
 * grants `/proc` only with `--allow-all`).
 */
export function socketMasks(allowed: readonly string[], home: string): Mask[] {
  let table: string;
  try {
    table = readFileSync(PROC_NET_UNIX, "utf8");
  } catch (error) {
    throw new BashSpawnError(
      `Cannot read ${PROC_NET_UNIX} to hide the Unix sockets not in allowUnixSockets (${
        messageOf(error)
      }), so nothing was run; run Deno with --allow-all, or drop allowUnixSockets`,
      { cause: error },
    );
  }
  const kept = allowed.flatMap((path) => existingRealpath(expandHome(path, home)) ?? []);
  const masks: Mask[] = [];
  for (const line of table.split("\n").slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path; an abstract name starts with "@".
    const path = line.trim().split(/\s+/).slice(7).join(" ");
    if (!path.startsWith("/")) continue;
    const real = existingRealpath(path);
    if (real === undefined || kept.some((allowedPath) => isBeneath(real, allowedPath))) continue;
    try {
      if (lstatSync(real).isSocket()) masks.push({ path: real, directory: false, kind: "socket" });
    } catch {
      continue;
    }
  }
  return masks;
}

/**
 * The empty mode-000 file that files and sockets are masked with, in `dir`
 * (the executor's private directory), made unless it is there already
 * (concurrent calls make it once); directories get a tmpfs. Throws
 * `BashSpawnError` when something else holds its name.
 */
export function makeMaskFile(dir: string): string {
  const file = join(dir, "mask");
  // Made whole under a name of its own, then linked into place: another call
  // never sees it half made.
  const draft = join(dir, `mask-${crypto.randomUUID()}`);
  writeFileSync(draft, "", { flag: "wx" });
  try {
    chmodSync(draft, 0);
    linkSync(draft, file);
  } catch (error) {
    if ((error as { code?: string }).code !== "EEXIST") throw error;
  } finally {
    rmSync(draft, { force: true });
  }
  const stat = lstatSync(file);
  if (!stat.isFile() || stat.size !== 0 || (stat.mode & 0o777) !== 0) {
    throw new BashSpawnError(
      `"${file}" is not the empty mode-000 file the sandbox masks files with, so nothing was ` +
        "run; create a new executor",
    );
  }
  return file;
}
