/**
 * Folder listings that a launch reads again and again (the temporary folder
 * for other executors' private folders, the parents of the denied paths),
 * kept while the folder has not changed.
 *
 * @module
 */
import { statSync } from "node:fs";
import { runtime } from "../runtime/mod.ts";

/**
 * How long a folder must have stayed unchanged (both times) before its
 * listing is kept: the times come from a coarse clock, so a change in the
 * same tick as the last one could leave them as they were.
 */
const SETTLED_MS = 1000;

/** At most this many folders' listings are kept. */
const MAX_KEPT = 64;

interface Kept {
  dev: number;
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
  names: readonly string[];
}

const kept = new Map<string, Kept>();

/**
 * The names in folder `path` (in no particular order), listed anew
 * unless it is the same folder as at the last listing with the same
 * modification and change times (which every entry made, removed or
 * renamed in it changes; setting the modification time back changes the
 * change time, which no one can set). Throws when the folder cannot be read.
 */
export function folderNames(path: string): readonly string[] {
  const stat = statSync(path);
  const last = kept.get(path);
  if (
    last !== undefined && last.dev === stat.dev && last.ino === stat.ino &&
    last.mtimeMs === stat.mtimeMs && last.ctimeMs === stat.ctimeMs
  ) {
    return last.names;
  }
  const names: readonly string[] = Object.freeze(
    runtime.readDirectory(path).map((entry) => entry.name),
  );
  kept.delete(path);
  if (Date.now() - Math.max(stat.mtimeMs, stat.ctimeMs) > SETTLED_MS) {
    if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value as string);
    const { dev, ino, mtimeMs, ctimeMs } = stat;
    kept.set(path, { dev, ino, mtimeMs, ctimeMs, names });
  }
  return names;
}
