import type { BashSandboxInfo, ResourceLimits, SandboxViolation } from "../seam/mod.ts";

/**
 * The program a command runs as, before the executor gives it a session of
 * its own: by default `bash -c <command>`. The executor's confiner
 * rewrites it in its plan (the sandbox's wraps it in a backend).
 *
 * @example
 * ```ts
 * import type { Launch } from "./mod.ts";
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
  /**
   * Bytes the launch reads from its stdin before anything else (a sandbox
   * hands its wrapper the command's environment there, never on a command
   * line, where any local user could read it): the executor writes them
   * first, then the command's own stdin, if any.
   */
  input?: Uint8Array;
}

/**
 * How a command ended, as a launch plan sees it when describing the run.
 *
 * @example
 * ```ts
 * import type { LaunchOutcome } from "./mod.ts";
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
 * What a confiner's `plan()` returns (see `Confiner`): the launch to spawn, and optionally how to
 * describe the settled command's sandbox facts (stamped on the run result and
 * on the settled background process).
 *
 * @example
 * ```ts
 * import type { LaunchPlan } from "./mod.ts";
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
  /**
   * True when every process of the launch lives in a pid namespace that
   * ends with it (bwrap's): none can be outside its session once it ended,
   * so the sweep after it does not look for them by their marker.
   */
  pidNamespace?: boolean;
  /**
   * With `pidNamespace`: how many processes the namespace ended when the
   * command's shell exited (they are counted in `strays.killed`), read once
   * the launch was swept; undefined when that is unknown (whatever was to
   * report it was killed), which the result's `strays.censusFailed` then says,
   * unless the executor itself killed the command.
   */
  namespaceStrays?: () => number | undefined;
  /**
   * How this launch can run in a process started ahead of it (see
   * {@linkcode LaunchStandby}); the executor keeps one ready after a command
   * whose plan had one.
   */
  standby?: LaunchStandby;
  /**
   * Set when the launch writes the byte 6 first on its stdout once the
   * command itself starts, after the runner's own setup (bwrap's mounts):
   * the executor takes that byte out. A launch that ends before writing it
   * never ran the command; when `retry` says so for what the runner wrote
   * to stderr (a mount point gone since the plan was made), the executor
   * plans the call again and spawns that, up to three launches in all.
   */
  announcesStart?: { retry(stderr: string): boolean };
}

/**
 * A launch that can run in a process started before it is needed: the
 * executor starts `prepare()` once a command settles, and hands the next
 * launch with the same `key` (and no stdin) to it as `input` on its stdin,
 * then closes that. The slow part of a start (the session, a shell, joining
 * the cgroups, which waits for the kernel) is then done while nothing
 * waits for it. Only for limits held by cgroups.
 *
 * @example
 * ```ts
 * import type { LaunchStandby } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const standby: LaunchStandby = {
 *   key: "cat",
 *   prepare: () => ({ program: "/usr/bin/cat", args: [], cwd: "/", env: {} }),
 *   input: () => new TextEncoder().encode("hi\n"),
 * };
 * assert.equal(standby.prepare([]).program, "/usr/bin/cat");
 * ```
 */
export interface LaunchStandby {
  /** Launches whose standbys are interchangeable have the same key. */
  key: string;
  /**
   * The process to start ahead: it joins the cgroups of `cgroupProcs` first
   * (refusing to go on when it cannot), then reads its stdin, and right
   * before it runs the launch it writes the byte 6 to its stdout, ahead of
   * the command's output. One that ends before that byte has not run the
   * launch, which then starts as usual.
   */
  prepare(cgroupProcs: readonly string[]): Launch;
  /** What a standby is told to run this launch with `rlimits` (read to the end of its stdin). */
  input(rlimits: ResourceLimits): Uint8Array;
}

/**
 * The resource limits a launch must apply before the command's own program
 * runs: the cgroups to join (by writing its pid to each `cgroup.procs`
 * file, refusing to run when that fails) and the rest as rlimits. See
 * `Confiner.plan`.
 *
 * @example
 * ```ts
 * import type { LaunchLimits } from "./mod.ts";
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
