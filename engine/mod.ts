/**
 * The command engine every executor is built on, as the folders above it
 * (`local/`, `sandbox/`, `remote/`, `git/`) see it. Not an entry point of
 * the package: `@shellseam/bash/local` re-exports the few public names
 * (the config's types, `ENV_OVERRIDES`, `HostSignal`, the launch plan's
 * types).
 *
 * The list, by concern:
 * 1. The engine of an executor on this host ({@linkcode CommandEngine}, its
 *    {@linkcode EngineHooks}), the executor class built on it
 *    ({@linkcode EngineBashExecutor}, public through `local/`), its config, and the launch plan a hook returns;
 *    the bookkeeping every executor shares ({@linkcode ExecutorLifecycle}:
 *    launches, running commands, signal hooks, disposal and its error), and
 *    the one rule of a command's clocks ({@linkcode clocks}).
 * 2. Requests: filling, checking and the executor's limits.
 * 3. A command's lifecycle, for an executor that spawns its own (the SSH
 *    executor): {@linkcode RunningCommand} and its {@linkcode Reaper}, the
 *    output collector, and what every executor's launched command becomes:
 *    its result ({@linkcode finishRun}) or its background handle
 *    ({@linkcode backgroundProcess}).
 * 4. Resource limits: merging, the confined defaults, cgroups, rlimits and the
 *    short bash that applies them.
 * 5. The host: finding programs, the environment's overrides and bash's
 *    flags, canonical paths (the sandbox's and the host-side git commit's),
 *    the private folders, the watchdog, the host signals, a refused
 *    Deno permission as a typed error, the start byte of a launch.
 *
 * @module
 */
export { CommandEngine, type EngineHooks } from "./_command_engine.ts";
export { buildEngine, EngineBashExecutor } from "./_engine_executor.ts";
export { disposedError, ExecutorLifecycle, type Teardown } from "./_lifecycle.ts";
export { clocks } from "./_clocks.ts";
export { callDefaultLimits, confines } from "./_confined.ts";
export {
  type Confiner,
  type ConfinerHost,
  type MakeConfiner,
  type WithConfinerWrap,
  WRAP_CONFINER,
} from "./_confiner.ts";
export {
  LOCAL_CONFIG_KEYS,
  type LocalBashExecutorConfig,
  resolveConfig,
  type ResolvedLocalBashExecutorConfig,
} from "./_config.ts";
export type {
  CgroupSlot,
  Launch,
  LaunchLimits,
  LaunchOutcome,
  LaunchPlan,
  StartedAhead,
} from "./_launch.ts";

export { checkBackground, checkForeground, executorLimits, fillRequest } from "./_request.ts";

export { type Reaper, RunningCommand } from "./_command.ts";
export { joinedBytes, OutputCollector } from "./_output.ts";
export type { Launched } from "./_launched.ts";
export { finishRun } from "./_run_result.ts";
export { backgroundProcess } from "./_background.ts";

export {
  appliedLimits,
  APPLY_LIMITS,
  CONFINED_DEFAULT_LIMITS,
  hasLimits,
  JOIN_FAILURE_PREFIX,
  limitArgs,
  limitedLaunch,
  mergeLimits,
  type Rlimit,
  rlimitsToSet,
} from "./_limits.ts";
export { type CgroupSupport, cgroupSupportFor } from "./_cgroup_support.ts";
export type { CommandCgroup } from "./_cgroup.ts";

export { findOnPath, findSetsid, helperSetsid, inOwnSession } from "./_session.ts";
export { hostToolPath } from "./_host_tools.ts";
export {
  canonicalPath,
  existingRealpath,
  exposedLocation,
  isBeneath,
  resolutionLocations,
} from "./_paths.ts";
export { BASH_FLAGS, ENV_OVERRIDES, TERMINAL_ENV_OVERRIDES } from "./_env.ts";
export { terminalCommand } from "./_terminal.ts";
export { folderNames, settledSince } from "./_listing.ts";
export {
  isOwnDirectory,
  makeFolder,
  makePrivateDir,
  otherPrivateDirs,
  PRIVATE_PARENT_PREFIX,
  privateParents,
} from "./_private_dir.ts";
export { Watchdog, WATCHDOG_VARIABLE } from "./_watchdog.ts";
export { HOST_SIGNALS, type HostSignal } from "./_signals.ts";
export { throwIfDenied } from "./_permissions.ts";
export { awaitStart, LAUNCH_STARTED } from "./_start.ts";
