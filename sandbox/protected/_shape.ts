import { readlinkSync } from "node:fs";
import { type FileState, pathState } from "../../runtime/mod.ts";

/** What a path was, as `lstat` saw it (never following a symlink). */
export interface Shape {
  kind: "absent" | "directory" | "file" | "symlink" | "other";
  dev: number;
  ino: number;
  /** A symlink's target, as written. */
  link?: string;
  /** A regular file's state from the same `lstat` (see `PointerReads.read`); no part of its identity. */
  file?: FileState;
}

/** The shape of a path that does not exist. */
export const ABSENT: Shape = { kind: "absent", dev: 0, ino: 0 };

/**
 * The shape of `path` now (absent when it cannot be seen). The runtime's
 * cheapest `lstat` (see `pathState`): the walks call it for each protected
 * path they find, which most likely exists.
 */
export function shapeOf(path: string): Shape {
  let state;
  try {
    state = pathState(path);
  } catch {
    return ABSENT;
  }
  if (state === undefined) return ABSENT;
  const { kind, dev, ino, file } = state;
  if (file !== undefined) return { kind, dev, ino, file };
  if (kind !== "symlink") return { kind, dev, ino };
  try {
    return { kind, dev, ino, link: readlinkSync(path) };
  } catch {
    return { kind, dev, ino };
  }
}

/** True when `a` and `b` are the same inode of the same kind (and the same link, for a symlink). */
export function sameShape(a: Shape, b: Shape): boolean {
  return a.kind === b.kind && a.dev === b.dev && a.ino === b.ino && a.link === b.link;
}
