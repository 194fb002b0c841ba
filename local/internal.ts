/**
 * The one door from the rest of the library into local/'s internals: what
 * the sandbox, which extends the local executor and runs on the same host,
 * shares with it (host lookups, permission refusals, the config's keys,
 * resource limits, the private folders). Not part of the package's exports;
 * nothing outside this repository may import it.
 *
 * @module
 */
export { LOCAL_CONFIG_KEYS } from "./_config.ts";
export { appliedLimits, CONFINED_DEFAULT_LIMITS, mergeLimits } from "./_limits.ts";
export { throwIfDenied } from "./_permissions.ts";
export { otherPrivateDirs, privateParents } from "./_private_dir.ts";
export { findOnPath } from "./_session.ts";
