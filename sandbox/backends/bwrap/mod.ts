/**
 * The bubblewrap backend. A launch confined by bwrap runs as:
 *
 * 1. The wrapper (`_wrapper.ts`), a bash outside the sandbox, applies the
 *    command's limits, closes what it inherited, and hands bwrap its seccomp
 *    filter, its options and its masks on descriptors (or a standby,
 *    `_standby.ts`, does that before the call and execs bwrap, which then
 *    reads the call's input as its options, the command among them; or,
 *    set up ahead with the last call's options, waits inside for the
 *    command alone).
 * 2. bwrap mounts the view and enters the namespaces its arguments name
 *    (`_args.ts`, a pure transform with its mount order numbered).
 * 3. Inside, the namespace's reporter (`_reporter.ts`), the namespace's pid
 *    1, runs the command, then counts and kills what the namespace still holds.
 * 4. The backend (`_bwrap.ts`) reads a failed command's stderr for bwrap's
 *    own failure or a denial.
 *
 * This folder's surface for the rest of `sandbox/` and for `remote/`, which
 * confines a command on a remote host with the same arguments, wrapper,
 * seccomp filters and reading of its refusals, built from facts gathered
 * there; nothing here is public.
 *
 * @module
 */
export { type BwrapFolders, REMOTE_PATHS } from "./_args.ts";
export {
  BWRAP_KIND,
  bwrapDenied,
  bwrapEnforcement,
  bwrapRunnerFailed,
  createBwrapBackend,
} from "./_bwrap.ts";
export { readStrayReport } from "./_reporter.ts";
export { type BwrapFilters, bwrapFilters, printfEscaped, wrapInBwrap } from "./_wrapper.ts";
