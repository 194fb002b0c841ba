import type { BashSandboxInfo, ResourceLimits, SandboxViolation } from "../seam/mod.ts";

/**
 * The program a command runs as, before the executor gives it a session of
 * its own: by default `bash -c <command>`. A subclass of
 * `LocalBashExecutor` rewrites it in `planLaunch()` (a sandbox wraps it).
 *
 * @example
 * ```ts
 * import type { Launch } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * const launch: Launch = {
 *   program: "/usr/bin/bash",
 *   args: ["-c", "echo hi"],
 *   cwd: "/tmp",
 *   env: { PATH: "/usr/bin:/bin" },
 * };
 * assert.deepEqual(launch.args, ["-c", "echo hi"]);
 * ```
 */
export interface Launch {
  /** Absolute path of the program. */
  program: string;
  /** Its arguments. */
  args: string[];
  /** Absolute working directory. */
  cwd: string;
  /** The complete environment. */
  env: Record<string, string>;
}

/**
 * How a command ended, as a launch plan sees it when describing the run.
 *
 * @example
 * ```ts
 * import type { LaunchOutcome } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * const outcome: LaunchOutcome = {
 *   exitCode: 1,
 *   signal: null,
 *   stderrText: "Read-only file system",
 *   killedByExecutor: false,
 * };
 * // The command failed on its own: no timeout, abort or disposal killed it.
 * assert.equal(outcome.killedByExecutor, false);
 * ```
 */
export interface LaunchOutcome {
  /** Exit code, or null when a signal ended it. */
  exitCode: number | null;
  /** Ending signal, or null. */
  signal: string | null;
  /** The retained stderr text (head and tail). */
  stderrText: string;
  /** True when the executor killed it (timeout, idle, abort, kill, disposal). */
  killedByExecutor: boolean;
}

/**
 * What `planLaunch()` returns: the launch to spawn, and optionally how to
 * describe the settled command's sandbox facts (stamped on the run result and
 * on the settled background process).
 *
 * @example
 * ```ts
 * import type { LaunchPlan } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * const plan: LaunchPlan = {
 *   launch: { program: "/usr/bin/bash", args: ["-c", "true"], cwd: "/", env: {} },
 *   describe: () => ({ mode: "danger-full-access", backend: "none", denied: false }),
 * };
 * const outcome = { exitCode: 0, signal: null, stderrText: "", killedByExecutor: false };
 * assert.deepEqual(plan.describe?.(outcome), {
 *   mode: "danger-full-access",
 *   backend: "none",
 *   denied: false,
 * });
 * ```
 */
export interface LaunchPlan {
  /** The launch to spawn. */
  launch: Launch;
  /** Sandbox facts for the settled command. */
  describe?: (outcome: LaunchOutcome) => BashSandboxInfo;
  /**
   * Run before each read of a running background command's output (a sandbox
   * checks its workspace); what it returns is the read's `violations`.
   */
  beforeRead?: () => SandboxViolation[];
  /**
   * True when `launch` applies the {@linkcode LaunchLimits} it was planned
   * with itself (a sandbox's wrapper does); otherwise the executor puts a
   * short bash in front of it that does.
   */
  limitsApplied?: boolean;
}

/**
 * The resource limits a launch must apply before the command's own program
 * runs: the cgroups to join (by writing its pid to each `cgroup.procs`
 * file, refusing to run when that fails) and the rest as rlimits. See
 * `LocalBashExecutor.planLaunch`.
 *
 * @example
 * ```ts
 * import type { LaunchLimits } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * const limits: LaunchLimits = { rlimits: { fileSizeBytes: 1024 ** 3 }, cgroupProcs: [] };
 * assert.equal(limits.cgroupProcs.length, 0);
 * ```
 */
export interface LaunchLimits {
  /** Limits set per process (`ulimit`), soft and hard. */
  rlimits: ResourceLimits;
  /** The `cgroup.procs` files of the command's cgroups. */
  cgroupProcs: readonly string[];
}
