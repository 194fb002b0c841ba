/**
 * The one door from the rest of the library into local/'s internals: what
 * the sandbox (which extends the local executor and runs on the same host)
 * and the SSH executor (which runs each command's lifecycle with the same
 * {@linkcode RunningCommand}, fed by a reaper of its own, collects output
 * with the same head + tail + spill collector, hands out the same background
 * process handle, fills and checks requests and applies rlimits with the
 * same functions, and keeps its local `ssh` processes from outliving the
 * host with the same watchdog)
 * share with it. Not part of the package's exports; nothing outside this
 * repository may import it.
 *
 * @module
 */
export { type CgroupSupport, cgroupSupportFor } from "./_cgroup.ts";
export { type Reaper, RunningCommand } from "./_command.ts";
export { LOCAL_CONFIG_KEYS, resolveConfig } from "./_config.ts";
export { BASH_FLAGS, ENV_OVERRIDES } from "./_env.ts";
export {
  appliedLimits,
  APPLY_LIMITS,
  CONFINED_DEFAULT_LIMITS,
  hasLimits,
  JOIN_FAILURE_PREFIX,
  limitArgs,
  limitedLaunch,
  limitHit,
  mergeLimits,
  type Rlimit,
  rlimitsToSet,
} from "./_limits.ts";
export { folderNames } from "./_listing.ts";
export { OutputCollector } from "./_output.ts";
export { throwIfDenied } from "./_permissions.ts";
export {
  isOwnDirectory,
  makeFolder,
  makePrivateDir,
  otherPrivateDirs,
  privateParents,
} from "./_private_dir.ts";
export { LocalBashProcess } from "./_process.ts";
export { HOST_SIGNALS, type HostSignal, SignalHooks } from "./_signals.ts";
export { commandResult } from "./_run_result.ts";
export { checkBackground, executorLimits, fillRequest } from "./_request.ts";
export { findOnPath, findSetsid } from "./_session.ts";
export { disposedError } from "./_spawn_checks.ts";
export { LAUNCH_STARTED } from "./_start.ts";
export {
  connectTcp,
  listenUnix,
  type NetListener,
  type NetSocket,
  resolveHost,
  splice,
} from "../runtime/mod.ts";
export { Watchdog, WATCHDOG_VARIABLE } from "./_watchdog.ts";
