/**
 * The shapes of the protected directories (and symlinks) found in a
 * folder's listing, kept from pass to pass while the folder watch vouches
 * that nothing in the folder changed: the launch's walk then costs no
 * `lstat` for them (100 of the 150 protected paths in the bench's
 * 19,000-entry tree), nor does the sweep.
 *
 * @module
 */
import { dirname } from "node:path";
import type { FolderListings, Listing } from "./_listings.ts";
import { type Shape, shapeOf } from "./_shape.ts";

/**
 * At most this many shapes are kept (a walk finds one per protected name a
 * folder lists, far fewer than its entries); past it, all are dropped.
 */
const MAX_KEPT = 80_000;

interface Kept {
  shape: Shape;
  /** The listing of its folder when the shape was taken. */
  listing: Listing;
  /** The watch's tick just before the shape was taken. */
  tick: number;
}

/**
 * The shape (see `Shape`) of each protected location found in its folder's
 * listing, taken again only when the folder may have changed.
 *
 * Why a shape kept is the shape now (the soundness argument):
 *
 * 1. A shape is the kind, device and inode of the entry at a name, and a
 *    symlink's target. Which inode a name is can change only by making,
 *    removing or renaming an entry in its folder (or by a mount, below),
 *    and each of those queues an inotify event on a watched folder. A
 *    symlink's target cannot be rewritten in place: changing it means
 *    replacing the link, an entry change too. So the shape of a name in a
 *    folder watched since before the shape was taken, with no event since,
 *    is as it was.
 * 2. That is what `FolderListings.unchangedSince(dir, tick)` tells within a
 *    pass (see `FolderWatch.trusted`): `dir` was watched before `tick` (taken
 *    just before the `lstat`), the pass began by reading every event queued,
 *    none was about `dir` or an entry of it since, and the mount table did
 *    not change (a mount makes no event; any change drops every watch, and a
 *    watch added again is newer than the tick). A root is never vouched for
 *    (its parent is not watched), nor is anything under Node, without FFI,
 *    or past the watch's bound: those are looked at as before.
 * 3. The folder's listing must also be the one the shape was taken with (the
 *    same object: `FolderListings` keeps it only while the folder's inode
 *    and times are unchanged). This is not needed given 2, and costs nothing.
 * 4. Only a directory's or a symlink's shape is reused. A regular file is
 *    looked at each time: its content matters (a `.git` file's `gitdir:`
 *    line, read from every protected file, see `PointerReads`), and writing
 *    to it (IN_MODIFY, not watched) may give it another inode with no entry
 *    change on an overlay whose layers do not keep inode numbers (copy-up).
 * 5. A mode or owner change of a directory or symlink (which the shape does
 *    not hold) queues IN_ATTRIB on the watched folder, counted as a change
 *    of the folder: the next pass looks again.
 *
 * Any doubt means an `lstat`, as with no watch.
 *
 * @example
 * ```ts
 * import { FoundShapes } from "./_found_shapes.ts";
 * import { FolderListings } from "./_listings.ts";
 * import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import assert from "node:assert/strict";
 *
 * const dir = realpathSync(mkdtempSync(join(tmpdir(), "shapes-")));
 * mkdirSync(join(dir, ".git"));
 * const listings = new FolderListings();
 * const shapes = new FoundShapes(listings);
 * // No watch: each pass looks again.
 * listings.pass(() => shapes.shape(join(dir, ".git")));
 * assert.equal(listings.pass(() => shapes.shape(join(dir, ".git"))).kind, "directory");
 * assert.equal(shapes.looks, 2);
 * rmSync(dir, { recursive: true });
 * ```
 */
export class FoundShapes {
  readonly #listings: FolderListings;
  readonly #kept = new Map<string, Kept>();
  #looks = 0;

  /** `listings` lists the folders and tells which ones the watch vouches for. */
  constructor(listings: FolderListings) {
    this.#listings = listings;
  }

  /** How many shapes were looked at (`lstat`) so far: one reused is not counted. */
  get looks(): number {
    return this.#looks;
  }

  /**
   * The shape of `location`, a name of one part found in its folder's listing
   * during the pass under way; reused when that folder is vouched for since
   * it was taken (see the class), looked at otherwise.
   */
  shape(location: string): Shape {
    const dir = dirname(location);
    let listing: Listing | undefined;
    try {
      listing = this.#listings.listing(dir);
    } catch {
      listing = undefined;
    }
    const kept = this.#kept.get(location);
    if (
      kept !== undefined && kept.shape.kind !== "file" && listing !== undefined &&
      kept.listing === listing && this.#listings.unchangedSince(dir, kept.tick)
    ) return kept.shape;
    // The tick goes first: a change after it is an event, one before shows in the `lstat`.
    const tick = this.#listings.tick();
    this.#looks++;
    const shape = shapeOf(location);
    if (listing === undefined || tick === 0) {
      this.#kept.delete(location);
      return shape;
    }
    if (this.#kept.size >= MAX_KEPT) this.#kept.clear();
    this.#kept.set(location, { shape, listing, tick });
    return shape;
  }
}
