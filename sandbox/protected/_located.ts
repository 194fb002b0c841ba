import { basename, dirname, join, relative } from "node:path";
import { existingRealpath, isBeneath } from "../_paths.ts";
import { shapeOf } from "./_shape.ts";

/**
 * Where `path` really is (a protected name with more than one part may
 * pass through a symlink), when that lies in one of the writable `roots`
 * below real directories only; undefined otherwise (nothing there is
 * protected).
 */
export function located(path: string, roots: readonly string[]): string | undefined {
  const parent = existingRealpath(dirname(path));
  if (parent === undefined) return undefined;
  const real = join(parent, basename(path));
  return realParents(real, roots) ? real : undefined;
}

/** True when every directory from its root down to `path`'s parent is a real directory. */
function realParents(path: string, roots: readonly string[]): boolean {
  const root = roots.find((root) => isBeneath(path, root) && path !== root);
  if (root === undefined) return false;
  let current = root;
  for (const part of relative(root, dirname(path)).split("/").filter((p) => p !== "")) {
    current = join(current, part);
    if (shapeOf(current).kind !== "directory") return false;
  }
  return true;
}
