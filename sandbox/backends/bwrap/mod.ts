/**
 * The bubblewrap backend.
 *
 * This folder's surface for the rest of `sandbox/`; nothing here is public.
 *
 * @module
 */
export {
  bwrapDenied,
  bwrapEnforcement,
  type BwrapFilters,
  bwrapFilters,
  type BwrapFolders,
  bwrapRunnerFailed,
  createBwrapBackend,
  printfEscaped,
  readStrayReport,
  REMOTE_PATHS,
  wrapInBwrap,
} from "./_bwrap.ts";
