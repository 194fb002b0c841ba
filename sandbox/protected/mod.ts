/**
 * Protected paths (`.git` and the policy's others) in every writable root.
 * The life of one call's protection is:
 *
 * 1. At launch, a bounded walk of each writable root finds them
 *    (`_walk.ts`, `_launch_walk.ts`), following git's pointers and reading
 *    the config git would obey (`_git_config.ts`).
 * 2. The backends bind read-only those that exist.
 * 3. When the call ends (a background command: when it settles, and at each
 *    read), a sweep checks them again, and whatever appeared or changed
 *    where one belongs is moved to the executor's quarantine (`_sweep.ts`,
 *    `_quarantine.ts`).
 *
 * A commit on the host and the confined calls still running exclude each
 * other on overlapping paths (`_commit_claim.ts`).
 *
 * This folder's surface for the rest of `sandbox/`; nothing here is public.
 *
 * @module
 */
export { CommitClaim, grantedCount, grantedRoots, markGranted } from "./_commit_claim.ts";
export { OutsideRoots } from "./_outside_roots.ts";
export type { ProtectionPlan } from "./_launch_walk.ts";
export { ProtectedPaths } from "./_protected_paths.ts";
export { protectionGaps } from "./_protection_gaps.ts";
export { unprotectedReason } from "./_unprotected_reason.ts";
export { FolderListings } from "./_listings.ts";
export { FolderWatch, watchableRoot } from "./_folder_watch.ts";
export {
  ENTRY_CHANGES,
  type FolderEvents,
  openInotify,
  UNCLOSED_EVENTS,
  WATCH_LOST,
} from "./_inotify.ts";
export { WalkMemory } from "./_walk_memory.ts";
export { PROTECTED_WALK_DEPTH, PROTECTED_WALK_ENTRIES, PROTECTED_WALK_SKIPS } from "./_walk.ts";
