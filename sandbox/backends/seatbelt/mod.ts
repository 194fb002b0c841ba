/**
 * The Seatbelt backend for macOS, so far its pure part: the profile that
 * `sandbox-exec -p PROFILE -D NAME=VALUE ...` confines a command with
 * (`_profile.ts`, its rule order numbered), the one escaper through which
 * a name enters a regex of it (`_regex.ts`), and the launch through
 * `sandbox-exec` (`_launch.ts`). No backend kind is made of it yet: nothing
 * chooses a backend by platform.
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
export { findSandboxExec, seatbeltLaunch } from "./_launch.ts";
export { escapeRegex, protectedNameRegex } from "./_regex.ts";
