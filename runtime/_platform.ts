import process from "node:process";

/**
 * Which `ps` this platform has, by how it shows a process's environment:
 * procps (Linux: the BSD-style `e` flag) or BSD (macOS: `-E`, the
 * environment the process was started with; no session id, `sess` is a
 * kernel pointer that reads 0 for an unprivileged caller).
 *
 * @example
 * ```ts
 * import type { PsFlavour } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * const flavour: PsFlavour = "bsd";
 * assert.notEqual(flavour, "procps");
 * ```
 */
export type PsFlavour = "procps" | "bsd";

/**
 * The facts about the operating system that shellseam's engine acts on, in
 * one place: a test injects another platform's (say macOS's, on Linux)
 * through the executor's runtime (`Runtime.platform`).
 *
 * @example
 * ```ts
 * import { platformFacts, type PlatformFacts } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * const darwin: PlatformFacts = platformFacts("darwin", false);
 * assert.equal(darwin.ps, "bsd");
 * assert.equal(darwin.enforcesDataLimit, false);
 * ```
 */
export interface PlatformFacts {
  /** `process.platform`'s name: `linux`, `darwin`, `win32`... */
  readonly os: string;
  /**
   * Whether processes are found by reading `/proc` (Linux) rather than
   * through `ps` (every other platform, or Linux when told so in a test).
   */
  readonly proc: boolean;
  /** Which `ps` finds processes and their environment where there is no `/proc`. */
  readonly ps: PsFlavour;
  /** Whether the kernel enforces `RLIMIT_DATA` (macOS accepts it and ignores it). */
  readonly enforcesDataLimit: boolean;
}

/**
 * The facts of the operating system `os` (a `process.platform` name), with
 * `/proc` read when `proc` is true: `proc` false on Linux is the portable
 * path, the one macOS takes, forced.
 *
 * @example
 * ```ts
 * import { platformFacts } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(platformFacts("linux", false), {
 *   os: "linux",
 *   proc: false,
 *   ps: "procps",
 *   enforcesDataLimit: true,
 * });
 * ```
 */
export function platformFacts(os: string, proc: boolean): PlatformFacts {
  return Object.freeze({
    os,
    proc: proc && os === "linux",
    ps: os === "linux" ? "procps" : "bsd",
    enforcesDataLimit: os !== "darwin",
  });
}

/**
 * This process's platform. Linux reads `/proc` (where Deno refuses it
 * without `--allow-all`, the watchdog reads it instead).
 */
export const hostPlatform: PlatformFacts = platformFacts(process.platform, true);
