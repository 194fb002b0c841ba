import type { BashSandboxInfo, SandboxViolation } from "../seam/mod.ts";

/**
 * The program a command runs as, before the executor gives it a session of
 * its own: by default `bash -c <command>`. A subclass of
 * `LocalBashExecutor` rewrites it in `planLaunch()` (a sandbox wraps it).
 *
 * @example
 * ```ts
 * import type { Launch } from "@shellseam/bash/local";
 *
 * const launch: Launch = {
 *   program: "/usr/bin/bash",
 *   args: ["-c", "echo hi"],
 *   cwd: "/tmp",
 *   env: { PATH: "/usr/bin:/bin" },
 * };
 * console.log(launch.program);
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
 *
 * const outcome: LaunchOutcome = {
 *   exitCode: 1,
 *   signal: null,
 *   stderrText: "Read-only file system",
 *   killedByExecutor: false,
 * };
 * console.log(outcome.exitCode);
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
 *
 * const plan: LaunchPlan = {
 *   launch: { program: "/usr/bin/bash", args: ["-c", "true"], cwd: "/", env: {} },
 *   describe: () => ({ mode: "danger-full-access", backend: "none", denied: false }),
 * };
 * console.log(plan.describe?.({ exitCode: 0, signal: null, stderrText: "", killedByExecutor: false }));
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
}
