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
 * How long after a fine time (see {@linkcode settledSince}) a folder counts
 * as unchanged since: the kernel stamps a change from a clock that moves at
 * least every 10 ms (Linux's tick, HZ 100 or more); five times that.
 */
const FINE_SETTLE_MS = 50;

/**
 * How long after a coarse time (see {@linkcode settledSince}) a folder
 * counts as unchanged since: a filesystem may stamp whole seconds (ext3,
 * HFS+), and Deno gives change times in whole seconds, so a change made
 * later in that second could leave the time as it was; and the kernel's
 * clock lags the one `Date.now()` reads by up to a tick, so a change made
 * just after that second ended may still be stamped with it.
 */
const COARSE_SETTLE_MS = 1000 + FINE_SETTLE_MS;

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
 * The time after which a folder with these modification and change times
 * (in milliseconds) counts as settled: a change made from then on gives it
 * other times. A time is fine when its milliseconds are not a multiple of
 * ten: a filesystem's granularity is a power of ten of nanoseconds (Linux's
 * `s_time_gran`), so such a time comes from one that stamps to the
 * millisecond or finer, and a later change shows once the clock moved on.
 * Any other time (a coarse filesystem, Deno's change time, or a fine time
 * that happens to be round) may be a truncated one, so a later change in
 * the same second could read the same.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { settledSince } from "./_listing.ts";
 *
 * // A fine modification time, and a change time in whole seconds (Deno's).
 * assert.equal(settledSince(1_700_000_000_123, 1_700_000_000_000), 1_700_000_001_050);
 * assert.equal(settledSince(1_700_000_000_123, 1_700_000_000_121), 1_700_000_000_173);
 * ```
 */
export function settledSince(mtimeMs: number, ctimeMs: number): number {
  const after = (time: number) =>
    time + (Math.floor(time) % 10 === 0 ? COARSE_SETTLE_MS : FINE_SETTLE_MS);
  return Math.max(after(mtimeMs), after(ctimeMs));
}

/**
 * The names in folder `path` (in no particular order), listed anew
 * unless it is the same folder as at the last listing with the same
 * modification and change times (which every entry made, removed or
 * renamed in it changes; setting the modification time back changes the
 * change time, which no one can set). A listing is kept only once its
 * folder's times are settled (see {@linkcode settledSince}): a change in
 * the same tick as the last one could leave them as they were. Throws when
 * the folder cannot be read.
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
  // Read before the listing: a change made from then on is in the listing, or
  // (once the folder is settled) gives the folder other times.
  const listedFrom = Date.now();
  const names: readonly string[] = Object.freeze(
    runtime.readDirectory(path).map((entry) => entry.name),
  );
  kept.delete(path);
  if (listedFrom > settledSince(stat.mtimeMs, stat.ctimeMs)) {
    if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value as string);
    const { dev, ino, mtimeMs, ctimeMs } = stat;
    kept.set(path, { dev, ino, mtimeMs, ctimeMs, names });
  }
  return names;
}
