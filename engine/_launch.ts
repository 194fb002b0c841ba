import type { BashSandboxInfo, ResourceLimits, SandboxViolation } from "../seam/mod.ts";
import type { SpawnedChild } from "../runtime/mod.ts";
import type { CommandCgroup } from "./_cgroup.ts";

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
  /**
   * For a launch whose plan announces its start (`LaunchPlan.announcesStart`):
   * true when the start byte came, false when the launch ended without it
   * (its command never ran: whatever failed was the runner). Absent when the
   * launch does not announce it, or the executor stopped waiting for it.
   * Unlike stderr and the exit code, the command cannot forge it.
   */
  started?: boolean;
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
   * A process started ahead of the call that can run this launch (a
   * confiner may keep one ready, in cgroups made by
   * `LaunchLimits.cgroups`): the engine calls it, after its last checks,
   * in place of spawning `launch`. It resolves with the process that runs
   * the launch, or undefined when none can take it (nothing of the launch
   * ran), and the engine then spawns `launch` as usual. It waits for the
   * process to say that it runs the launch as long as a launch spawned
   * would be waited for (see `awaitStart`), or until the call's `signal`
   * aborts: then the process is the command's, whose clocks end it.
   */
  takeAhead?: (signal: AbortSignal | undefined) => Promise<StartedAhead | undefined>;
  /**
   * Called once the command has settled and its caller has the result (a
   * confiner starts a process ahead of the next call then).
   */
  afterSettle?: () => void;
  /**
   * Set when the launch writes the byte 6 first on its stdout once the
   * command itself starts, after the runner's own setup (bwrap's mounts):
   * the executor takes that byte out. A launch that ends before writing it
   * never ran the command; when `retry` says so for what the runner wrote
   * to stderr (a mount point gone since the plan was made, or a runner that
   * its check, still under way at the spawn, then refused: see `verdict`),
   * the executor plans the call again and spawns that, up to three launches
   * in all. When `retry` rejects, the launch's plan is settled unused (as
   * for one planned again) and the call rejects with its error.
   */
  announcesStart?: { retry(stderr: string): boolean | Promise<boolean> };
  /**
   * A check of the runner still under way when the launch is spawned (a
   * sandbox backend's probe, see `SandboxBackend.launchesBeforeProbe`),
   * told whether the launch said its command started (true), ended before
   * (false), or neither (undefined; see `announcesStart`). The executor
   * awaits it once the command is spawned, before `run()` has a result or
   * `start()` resolves. When it rejects, the command is killed and its
   * settling awaited (nothing of it is left running), `afterSettle` is not
   * called, and the call rejects with its error.
   */
  verdict?: (started: boolean | undefined) => Promise<void>;
}

/**
 * A process started ahead of a call that runs its launch (see
 * `LaunchPlan.takeAhead`): it joined `cgroup` while nothing waited for it,
 * and the engine takes it over as the command's child, its cgroups as the
 * command's.
 */
export interface StartedAhead {
  /** The process, which said that it runs the launch (its stdout goes on after that byte). */
  child: SpawnedChild;
  /** The cgroups it joined, with the call's limits written to them. */
  cgroup: CommandCgroup;
  /** `forkCount()` just after it was spawned: every process of its command is younger. */
  forksAtSpawn: number | null;
  /**
   * True when it said that it runs the launch (its start byte came);
   * absent when it was not waited for that long (see `takeAhead`).
   */
  started?: true;
}

/**
 * The cgroups of a call's kind (see `LaunchLimits.cgroups`): calls whose
 * cgroups hold the same limits have the same `key`, and `make()` makes
 * cgroups like the call's, with its `limits`, in the executor's folder,
 * for a process started ahead of a later call to join.
 *
 * @example
 * ```ts
 * import type { CgroupSlot } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const slot: CgroupSlot = {
 *   key: "processes",
 *   limits: { processes: 256 },
 *   make: () => Promise.reject(new Error("no cgroups in this example")),
 * };
 * assert.equal(slot.key, "processes");
 * ```
 */
export interface CgroupSlot {
  /** Which limits the cgroups hold (`processes`, `memoryBytes`). */
  key: string;
  /** The call's limits, which a process started ahead writes to its cgroups when it takes the call. */
  limits: ResourceLimits;
  /** New cgroups with `limits`, closed by whoever holds them. */
  make(): Promise<CommandCgroup>;
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
  /** When cgroups hold some of the limits: how to make more like the command's. */
  cgroups?: CgroupSlot;
}
