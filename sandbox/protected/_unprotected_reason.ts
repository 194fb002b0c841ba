import { isBeneath } from "../../engine/mod.ts";
import { ProtectedPaths } from "./_protected_paths.ts";
import { PROTECTED_WALK_DEPTH, PROTECTED_WALK_ENTRIES, PROTECTED_WALK_SKIPS } from "./_walk.ts";

/**
 * Why a confined command could have planted or written `path` (canonical; a
 * repository's `.git` or git directory), or undefined when it cannot: a
 * walk of `workspace` as a call's launch makes would bind it read-only (so
 * it is not past the walk's bounds nor in a skipped tree). A path outside
 * the workspace is not judged. Calls still running are
 * {@linkcode CommitClaim}'s to judge.
 */
export function unprotectedReason(path: string, workspace: string): string | undefined {
  if (!isBeneath(path, workspace)) return undefined;
  const fresh = new ProtectedPaths([workspace], [".git"], () => workspace);
  if (fresh.plan.readOnly.some((bound) => isBeneath(path, bound))) return undefined;
  return `the sandbox does not keep "${path}" read-only (it lies past the walk's ${PROTECTED_WALK_DEPTH} levels or ${PROTECTED_WALK_ENTRIES} entries, in a skipped tree such as ${
    PROTECTED_WALK_SKIPS[0]
  }, or below a symlink), so a confined command may have planted or written it: check it and commit by hand`;
}
