import type { BashSandboxInfo } from "./sandbox.ts";

/**
 * One output stream of a finished command, bounded in memory.
 *
 * @example
 * ```ts
 * import type { CollectedOutput } from "@shellseam/bash/seam";
 *
 * const out: CollectedOutput = {
 *   text: "hi\n",
 *   truncated: false,
 *   totalBytes: 3,
 *   omittedBytes: 0,
 *   spillComplete: true,
 *   invalidUtf8Bytes: 0,
 * };
 * console.log(out.text);
 * ```
 */
export interface CollectedOutput {
  /** The decoded text: head and tail joined by one omission marker when truncated. */
  text: string;
  /** True when bytes were omitted from `text`. */
  truncated: boolean;
  /** Bytes the stream produced in all. */
  totalBytes: number;
  /** Bytes missing from `text`. */
  omittedBytes: number;
  /** A 0600 file holding the raw stream from byte 0, when it overflowed. */
  spillPath?: string;
  /** False when the spill file stopped at its cap (or there is no spill file). */
  spillComplete: boolean;
  /** Bytes that were not valid UTF-8 and were replaced in `text`. */
  invalidUtf8Bytes: number;
}

/**
 * Processes that a command left behind and the executor stopped.
 *
 * @example
 * ```ts
 * import type { StrayReport } from "@shellseam/bash/seam";
 *
 * const strays: StrayReport = { killed: 1, survivors: [] };
 * console.log(strays.killed);
 * ```
 */
export interface StrayReport {
  /**
   * How many leftover processes the executor found and killed after the shell
   * exited. Processes that an isolation layer ended with the shell (the bwrap
   * backend's pid namespace) are not counted, so there it is usually 0.
   */
  killed: number;
  /** Pids that would not die. */
  survivors: number[];
}

/**
 * Everything about a finished foreground run. At most one of `timedOut`,
 * `idledOut` and `aborted` is true: the first cause that ended it.
 *
 * @example
 * ```ts
 * import type { BashRunResult } from "@shellseam/bash/seam";
 *
 * function summary(result: BashRunResult): string {
 *   if (result.timedOut) return `timed out after ${result.timeoutMs} ms`;
 *   return result.signal ?? `exit ${result.exitCode}`;
 * }
 * console.log(typeof summary);
 * ```
 */
export interface BashRunResult {
  /** The shell's exit code, or null when a signal ended it. */
  exitCode: number | null;
  /** The signal that ended the shell (for example `SIGKILL`), or null. */
  signal: string | null;
  /** The wall clock fired. */
  timedOut: boolean;
  /** The idle clock fired. */
  idledOut: boolean;
  /** The caller's signal aborted it. */
  aborted: boolean;
  /** The wall-clock limit that applied. */
  timeoutMs: number;
  /** How long it ran, in milliseconds. */
  durationMs: number;
  /** Standard output. */
  stdout: CollectedOutput;
  /** Standard error. */
  stderr: CollectedOutput;
  /** Processes left behind and stopped. */
  strays: StrayReport;
  /** Names dropped from the inherited environment. */
  scrubbedEnv: string[];
  /** Sandbox facts, from a sandboxing executor. */
  sandbox?: BashSandboxInfo;
  /**
   * From a remote executor: true when the connection to the remote host was
   * lost while the command ran. The remote side kills the command when its
   * channel closes; exit code and strays are then unknown (null and 0).
   */
  connectionLost?: boolean;
}
