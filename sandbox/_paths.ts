import { realpathSync } from "node:fs";
import { sep } from "node:path";

/** The realpath of `path`, or undefined when it does not exist. */
export function existingRealpath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** True when `path` is `root` or lies beneath it (both canonical). */
export function isBeneath(path: string, root: string): boolean {
  return path === root || root === sep || path.startsWith(root + sep);
}
