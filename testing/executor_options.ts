/**
 * What the conformance suite asks of the executor under test: the limits it
 * is made with, how it is made, and the weaker forms of the contract it
 * declares.
 *
 * @module
 */
import type { BashExecutor } from "../seam/mod.ts";

/**
 * The limits the suite gives every executor it makes: the factory passes
 * them on (the names are those of `LocalBashExecutorConfig`), since the
 * cases assert byte counts and grace periods against them.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import type { ConformanceExecutorOptions } from "@shellseam/bash/testing";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * const options: ConformanceExecutorOptions = {
 *   killGraceMs: 1000,
 *   drainGraceMs: 1000,
 *   maxOutputBytes: 4000,
 *   headBytes: 1000,
 *   maxSpillBytes: 1_000_000,
 * };
 * await using executor = new LocalBashExecutor(options);
 * assert.equal(executor.config.headBytes, 1000);
 * ```
 */
export interface ConformanceExecutorOptions {
  /** Time between SIGTERM and SIGKILL when the executor ends a command, in milliseconds. */
  killGraceMs: number;
  /** How long children may hold the output pipes after the shell exits, in milliseconds. */
  drainGraceMs: number;
  /** Bytes of each stream kept in memory (head plus rolling tail). */
  maxOutputBytes: number;
  /** Bytes of the head. */
  headBytes: number;
  /** Cap of each spill file, in bytes. */
  maxSpillBytes: number;
}

/**
 * Makes a fresh executor with the given limits. The suite disposes every
 * executor it makes.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import type { BashExecutorFactory } from "@shellseam/bash/testing";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * const factory: BashExecutorFactory = (options) => new LocalBashExecutor({ cwd: "/", ...options });
 * await using executor = await factory({
 *   killGraceMs: 1000,
 *   drainGraceMs: 1000,
 *   maxOutputBytes: 4000,
 *   headBytes: 1000,
 *   maxSpillBytes: 1_000_000,
 * });
 * assert.equal(executor.sandboxMode, undefined);
 * ```
 */
export type BashExecutorFactory = (
  options: ConformanceExecutorOptions,
) => BashExecutor | Promise<BashExecutor>;

/**
 * Where an executor declares that it keeps a weaker form of the contract,
 * because of how it isolates commands. Every capability defaults to `true`,
 * the full contract; declaring one `false` skips the cases that need it, or
 * asserts the weaker form named here. The bwrap sandbox backend declares all
 * four `false`: its pid namespace ends every process of a command the moment
 * the shell ends or is killed, and its init reports the shell's death by a
 * signal as an exit code.
 *
 * @example
 * ```ts
 * import type { BashExecutorCapabilities } from "@shellseam/bash/testing";
 * import assert from "node:assert/strict";
 *
 * const pidNamespace: BashExecutorCapabilities = {
 *   termGrace: false,
 *   drainGrace: false,
 *   countsStrays: false,
 *   reportsShellSignal: false,
 * };
 * assert.equal(Object.values(pidNamespace).includes(true), false);
 * ```
 */
export interface BashExecutorCapabilities {
  /**
   * Ending a command (timeout, idle, abort, kill, disposal) sends SIGTERM
   * first, so the command can handle it, and SIGKILL after `killGraceMs`.
   * `false`: every process may end at once, without running a handler.
   */
  termGrace?: boolean;
  /**
   * After the shell exits, children that still hold its output get
   * `drainGraceMs` to finish before they are killed. `false`: they end with
   * the shell, and what they had not written yet is lost.
   */
  drainGrace?: boolean;
  /**
   * `strays.killed` counts the processes of a command that the executor
   * found and killed after the shell exited. `false`: they may end
   * uncounted (a pid namespace kills them with the shell, and the executor
   * reports 0), so the count is not checked; that none is left is checked
   * either way.
   */
  countsStrays?: boolean;
  /**
   * A shell that a signal ended reports that signal (`signal: "SIGTERM"`,
   * `exitCode: null`). `false`: it reports the exit code a shell would show,
   * 128 + the signal's number, and `signal: null`.
   */
  reportsShellSignal?: boolean;
}
