import type { Launch } from "../../engine/mod.ts";
import type { ResourceLimits } from "../../seam/mod.ts";

/**
 * A confined launch that can run in a process started before it is needed
 * (a standby, see `sandbox/_standby.ts`): the sandbox's confiner starts
 * `prepare()` once a confined command settles, and hands the next launch
 * with the same `key` (and no stdin) to it as `input` on its stdin, then
 * closes that. The slow part of a start (the session, a shell or Deno,
 * joining the cgroups, which waits for the kernel) is then done while
 * nothing waits for it. Only for limits held by cgroups.
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
   * before it runs the launch it writes the byte 6 (`LAUNCH_STARTED`) to its
   * stdout, ahead of the command's output. One that ends before that byte
   * has not run the launch, which then starts as usual.
   */
  prepare(cgroupProcs: readonly string[]): Launch;
  /**
   * The programs the process started ahead runs unconfined besides its own
   * before its call comes (bwrap, which a bwrap standby execs ahead): vetted
   * with it when it starts, as a call's runners are at its launch.
   */
  runs?: readonly string[];
  /** What a standby is told to run this launch with `rlimits` (read to the end of its stdin). */
  input(rlimits: ResourceLimits): Uint8Array;
  /**
   * Where the standby with pid `pid`, once it ran the launch, left its
   * namespace's count (see `ConfinedPolicy.strayReport`): its own file, opened
   * before the call came, in place of the call's. Absent: the call's.
   */
  strayReport?(pid: number): string;
  /**
   * The launch's setup as it would be made now (see {@linkcode SetUpLaunch}),
   * for a standby that makes it ahead and waits for the command alone;
   * absent where the backend makes none.
   */
  setUp?(): SetUpLaunch;
}

/**
 * A launch's setup, made ahead of the call (bwrap's sandbox: its mounts,
 * namespaces and environment), by a standby that then waits for the command
 * and its rlimits alone. A call may take it only when its own setup has the
 * same `options`, and nothing on the way to its `paths` changed since it was
 * made (see `sandbox/_path_bindings.ts`): the setup is then what the call's
 * own launch would make.
 *
 * @example
 * ```ts
 * import type { SetUpLaunch } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const setUp: SetUpLaunch = {
 *   options: "--chdir\0/tmp\0",
 *   paths: ["/tmp"],
 *   file: "/run/private/options-1",
 *   prepare: () => ({ program: "/usr/bin/cat", args: [], cwd: "/", env: {} }),
 *   input: () => new TextEncoder().encode("true\0"),
 * };
 * assert.deepEqual(setUp.paths, ["/tmp"]);
 * ```
 */
export interface SetUpLaunch {
  /** Everything the setup is made of but the command and its rlimits, as text. */
  options: string;
  /**
   * The paths the setup mounts or enters that a command (of this executor
   * or another) could move: a mount made there covers what the path named then.
   */
  paths: readonly string[];
  /**
   * The file of the executor's private folder that `prepare` makes and the
   * process reads its setup from as it starts: the host removes it once the
   * process ran a call or ended.
   */
  file: string;
  /**
   * The process to start ahead, once it made `file`: it joins the cgroups of
   * `cgroupProcs`, makes the setup, then reads `input`, and writes the byte
   * 6 (`LAUNCH_STARTED`) right before it runs the command, as
   * `LaunchStandby.prepare`'s does.
   */
  prepare(cgroupProcs: readonly string[]): Launch;
  /** What the standby is told to run the launch with `rlimits` (read up to its end, not past it). */
  input(rlimits: ResourceLimits): Uint8Array;
}
