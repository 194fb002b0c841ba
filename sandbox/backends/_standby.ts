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
}
