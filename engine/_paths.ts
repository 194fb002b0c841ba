import { readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, sep } from "node:path";
import { throwIfDenied } from "./_permissions.ts";

/**
 * The realpath of `path`, or undefined when it does not exist. A refused
 * permission throws `BashConfigError`: it is not a missing path.
 */
export function existingRealpath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch (error) {
    throwIfDenied(error, `resolve "${path}"`);
    return undefined;
  }
}

/**
 * The canonical form of an absolute `path` as far as it exists: the realpath
 * of its longest existing ancestor, joined with the components that do not
 * exist yet (a file being created, a writable root not made yet).
 */
export function canonicalPath(path: string): string {
  const real = existingRealpath(path);
  if (real !== undefined) return real;
  const parent = dirname(path);
  return parent === path ? path : join(canonicalPath(parent), basename(path));
}

/** True when `path` is `root` or lies beneath it (both canonical). */
export function isBeneath(path: string, root: string): boolean {
  return path === root || root === sep || path.startsWith(root + sep);
}

/**
 * Every location the resolution of the absolute `path` passes through: each
 * component as found in its (canonical) directory, symlinks included, then
 * their targets. Whoever may replace one of them decides what `path` opens.
 */
export function resolutionLocations(path: string): string[] {
  const locations: string[] = [];
  const parts = path.split("/");
  let current = "/";
  for (let links = 0; parts.length > 0;) {
    const name = parts.shift()!;
    if (name === "" || name === ".") continue;
    const location = join(current, name);
    locations.push(location);
    let target: string | undefined;
    try {
      target = readlinkSync(location);
    } catch (error) {
      throwIfDenied(error, `read the link "${location}"`);
      target = undefined;
    }
    if (target === undefined || ++links > 40) {
      current = location;
      continue;
    }
    parts.unshift(...target.split("/"));
    if (isAbsolute(target)) current = "/";
  }
  return locations;
}

/**
 * The last location of `path`'s resolution (see {@linkcode resolutionLocations})
 * that lies in one of `roots` (canonical), with that root: the program
 * itself or a link's target, not a folder above it. Undefined when none does.
 */
export function exposedLocation(
  path: string,
  roots: readonly string[],
): { location: string; root: string } | undefined {
  return resolutionLocations(path).flatMap((location) => {
    const root = roots.find((root) => isBeneath(location, root));
    return root === undefined ? [] : [{ location, root }];
  }).at(-1);
}
