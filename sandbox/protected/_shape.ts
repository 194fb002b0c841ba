import { lstatSync, readlinkSync } from "node:fs";

/** What a path was, as `lstat` saw it (never following a symlink). */
export interface Shape {
  kind: "absent" | "directory" | "file" | "symlink" | "other";
  dev: number;
  ino: number;
  /** A symlink's target, as written. */
  link?: string;
}

/** The shape of a path that does not exist. */
export const ABSENT: Shape = { kind: "absent", dev: 0, ino: 0 };

/** The shape of `path` now (absent when it cannot be seen). */
export function shapeOf(path: string): Shape {
  let stat;
  try {
    // No exception for the common case, a protected name that is not there.
    stat = lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return ABSENT;
  }
  if (stat === undefined) return ABSENT;
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

/** True when `a` and `b` are the same inode of the same kind (and the same link, for a symlink). */
export function sameShape(a: Shape, b: Shape): boolean {
  return a.kind === b.kind && a.dev === b.dev && a.ino === b.ino && a.link === b.link;
}
