import { FoundShapes } from "./_found_shapes.ts";
import { GitConfigs } from "./_git_configs.ts";
import { walkAtLaunch } from "./_launch_walk.ts";
import { FolderListings } from "./_listings.ts";
import { PointerReads } from "./_pointer_reads.ts";

/**
 * What an executor's protected-path walks keep from walk to walk (a call's
 * launch, its sweeps, the next call's launch): the folders' listings,
 * the git configs, the shapes of the protected directories found and the
 * pointer files read, each read again only when it changed. Measured on a
 * workspace of 19,000 entries (50 nested repositories): a walk that lists
 * every folder and parses every config cost the host about 340 ms of CPU a
 * call on a busy 2-core machine; see bench `sandbox-bwrap-20k`.
 */
export class WalkMemory {
  /** The folders' listings. */
  readonly listings: FolderListings;
  /** The git configs, expanded. */
  readonly configs: GitConfigs;
  /** The shapes of the protected directories found (see `FoundShapes`). */
  readonly shapes: FoundShapes;
  /** The pointer files read (see `PointerReads`). */
  readonly pointers: PointerReads = new PointerReads();

  /** `listings` is where the walks keep the folders' listings (by default, a fresh one). */
  constructor(listings: FolderListings = new FolderListings()) {
    this.listings = listings;
    this.configs = new GitConfigs(listings);
    this.shapes = new FoundShapes(listings);
  }

  /**
   * Walks the writable `roots` (canonical, existing) for the protected
   * `names` as a launch would, keeping what it read for the next launch's
   * walk; it protects nothing and reports nothing.
   */
  prime(roots: readonly string[], names: readonly string[]): void {
    walkAtLaunch(roots, names, new Set(), this);
  }

  /** Stops the listings' folder watch, if any (an executor's disposal). */
  close(): void {
    this.listings.close();
  }
}
