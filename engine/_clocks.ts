/**
 * The clocks of a command, decided once for every executor. The rule:
 * 1. The wall clock (`timeoutMs`) and the idle clock (`idleTimeoutMs`) apply
 *    to a foreground run only; a background process runs until it ends or
 *    is killed.
 * 2. Both count from the moment the command started: on this host when it
 *    was spawned, or when its launch said it started (the sandbox's start
 *    byte, a process started ahead taking it); over SSH when the remote side said it
 *    started (its "S" message). What comes before is not on the clock:
 *    waiting for a channel or a connection, a cgroup, the sandbox's setup.
 *    So a command queued behind others runs for its whole time, and
 *    `durationMs` is measured over the same span.
 * 3. The caller's abort signal applies to both kinds of run, from the call:
 *    aborted before the command was spawned, the call rejects with
 *    `BashSpawnError` and nothing runs; aborted after that (also before the
 *    command said it started), the command is killed at once and the result
 *    says `aborted`.
 *
 * An executor calls {@linkcode clocks} at that moment and hands the result
 * to the `RunningCommand` it makes then, whose timers start as it is made.
 *
 * @module
 */
import type { BashExecSpec } from "../seam/mod.ts";

/** The clocks a `RunningCommand` runs (see the module's rule). */
export interface CommandClocks {
  timeoutMs?: number;
  idleTimeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * The clocks of `spec`'s command, for a `RunningCommand` made at the moment
 * the command started: the wall and idle clocks for a foreground run, the
 * abort signal for both.
 *
 * @example A background process gets the abort signal only
 * ```ts
 * import { clocks } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const signal = new AbortController().signal;
 * const spec = {
 *   command: "make",
 *   workdir: "/tmp",
 *   timeoutMs: 700,
 *   idleTimeoutMs: 300,
 *   stdoutMaxBytes: 1000,
 *   sandboxPolicy: null,
 *   signal,
 * };
 * assert.deepEqual(clocks(spec, false), { timeoutMs: 700, idleTimeoutMs: 300, signal });
 * assert.deepEqual(clocks(spec, true), { signal });
 * ```
 */
export function clocks(spec: BashExecSpec, background: boolean): CommandClocks {
  const clocks: CommandClocks = {};
  if (!background) clocks.timeoutMs = spec.timeoutMs;
  if (!background && spec.idleTimeoutMs !== undefined) clocks.idleTimeoutMs = spec.idleTimeoutMs;
  if (spec.signal !== undefined) clocks.signal = spec.signal;
  return clocks;
}
