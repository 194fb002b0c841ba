/**
 * The internals of the local executor that another executor reuses, in one
 * place so that the dependency is visible: `remote/` runs each command's
 * lifecycle (clocks, abort, kill, output pumps) with {@linkcode RunningCommand}
 * fed by a reaper of its own, collects output with the same head + tail +
 * spill collector, hands out the same background process handle, checks
 * calls and limits and applies rlimits with the same functions, and keeps its local `ssh`
 * processes from outliving the host with the same watchdog.
 *
 * @module
 */
export { type Reaper, RunningCommand } from "./_command.ts";
export {
  checkKnownKeys,
  outputBudget,
  positiveFinite,
  resolveConfig,
  wholeNumber,
} from "./_config.ts";
export type { CgroupSupport } from "./_cgroup.ts";
export { BASH_FLAGS, ENV_OVERRIDES } from "./_env.ts";
export {
  appliedLimits,
  CONFINED_DEFAULT_LIMITS,
  hasLimits,
  limitedLaunch,
  limitHit,
  mergeLimits,
} from "./_limits.ts";
export { OutputCollector } from "./_output.ts";
export { throwIfDenied } from "./_permissions.ts";
export { LocalBashProcess } from "./_process.ts";
export { checkCallValues, checkText } from "./_request.ts";
export { findOnPath } from "./_session.ts";
export { Watchdog, WATCHDOG_VARIABLE } from "./_watchdog.ts";
