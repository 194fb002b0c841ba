import { basename, dirname, join, relative } from "node:path";
import { existingRealpath, isBeneath } from "../../engine/mod.ts";
import { shapeOf } from "./_shape.ts";

/**
 * Where `path` really is (a protected name with more than one part may
 * pass through a symlink), when that lies in one of the writable `roots`
 * below real directories only; undefined otherwise (nothing there is
 * protected). `parents` keeps, for one pass of a walk, what each folder
 * was found to be (its real path, or null), so that the names of one
 * folder check it once. `absent`, when given, tells a folder that does not
 * exist from its parent's listing (see `FolderListings.absent`), with no
 * failed resolve (Deno builds an exception for each; `.config` of
 * `.config/git` is missing in most roots, and each sweep asked).
 */
export function located(
  path: string,
  roots: readonly string[],
  parents: Map<string, string | null> = new Map(),
  absent?: (path: string) => boolean,
): string | undefined {
  const folder = dirname(path);
  let parent = parents.get(folder);
  if (parent === undefined) {
    const real = absent?.(folder) === true ? undefined : existingRealpath(folder);
    parent = real !== undefined && realParents(join(real, basename(path)), roots) ? real : null;
    parents.set(folder, parent);
  }
  return parent === null ? undefined : join(parent, basename(path));
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
