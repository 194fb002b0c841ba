/**
 * The internals of the sandbox that another executor reuses, in one place so
 * that the dependency is visible: `remote/` confines commands on a remote
 * host with the bwrap backend's own arguments, wrapper, seccomp filters,
 * secret masks and denial checks, fed with facts gathered there.
 *
 * @module
 */
export type { ConfinedPolicy } from "./backends/mod.ts";
export { protectedPathList } from "./policy.ts";
export { isBeneath } from "./_paths.ts";
export { checkedPolicyPaths, expandHome, type MaskFs, outermost, secretMasks } from "./_masks.ts";
export {
  bwrapDenied,
  bwrapEnforcement,
  type BwrapFilters,
  bwrapFilters,
  type BwrapFolders,
  bwrapRunnerFailed,
  printfEscaped,
  REMOTE_PATHS,
  wrapInBwrap,
} from "./backends/bwrap/mod.ts";
