/**
 * The Seatbelt backend, for macOS: each launch runs through `sandbox-exec
 * -p PROFILE -D NAME=VALUE ...`.
 *
 * - `_profile.ts`: the profile of a confined policy, a pure transform with
 *   its rule order numbered; `_regex.ts`: the one escaper through which a
 *   name enters a regex of it.
 * - `_launch.ts`: `sandbox-exec` found on the search path, and a launch
 *   rewritten to run through it (limits before, the environment read inside
 *   by perl, on no command line).
 * - `_seatbelt.ts`: the backend (how a launch is wrapped, what it enforces,
 *   and what a failed command was denied: Seatbelt refuses with EPERM).
 * - `_self_probe.ts`: what the backend proves before its first command.
 * - `_kind.ts`: the backend as the sandbox finds it (on macOS only).
 *
 * This folder's surface for the rest of `sandbox/`; nothing here is public.
 *
 * @module
 */
export {
  literal,
  SEATBELT_LITERAL_MAX_BYTES,
  type SeatbeltFolders,
  type SeatbeltProfile,
  seatbeltProfile,
} from "./_profile.ts";
export {
  findSandboxExec,
  SEATBELT_FAILURE_EXIT,
  SEATBELT_PERL,
  SEATBELT_RUNNER,
  seatbeltLaunch,
} from "./_launch.ts";
export { escapeRegex, protectedNameRegex } from "./_regex.ts";
export {
  createSeatbeltBackend,
  SEATBELT_UNVERIFIED_GAP,
  seatbeltDenied,
  seatbeltEnforcement,
  seatbeltRunnerFailed,
} from "./_seatbelt.ts";
export { seatbeltSelfProbe, SELF_PROBES, selfProbeFailure } from "./_self_probe.ts";
export { SEATBELT_KIND } from "./_kind.ts";
