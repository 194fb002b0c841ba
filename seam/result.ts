import type { AppliedResourceLimits, ResourceLimitHit } from "./limits.ts";
import type { BashSandboxInfo } from "./sandbox.ts";

/**
 * A stream that is not text: its first 8 KB held a NUL byte or more than 10%
 * bytes outside well-formed UTF-8 (UTF-16 with a byte-order mark counts as
 * text and is decoded). Such a stream always goes to a spill file, however
 * small, so that it can be looked at with `xxd` or `file`; the tools show one
 * line for it instead of replacement characters.
 *
 * @example
 * ```ts
 * import type { BinaryStream } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const png: BinaryStream = { totalBytes: 18_432, looksLike: "image/png" };
 * assert.equal(`${Math.round(png.totalBytes / 1024)} KB`, "18 KB");
 * ```
 */
export interface BinaryStream {
  /** Bytes of the stream so far. */
  totalBytes: number;
  /** The media type its magic number names (`image/png`, `application/gzip`), if one does. */
  looksLike?: string;
}

/**
 * One output stream of a finished command, bounded in memory.
 *
 * @example
 * ```ts
 * import type { CollectedOutput } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const out: CollectedOutput = {
 *   text: "hi\n",
 *   truncated: false,
 *   totalBytes: 3,
 *   omittedBytes: 0,
 *   spillComplete: true,
 *   invalidUtf8Bytes: 0,
 * };
 * assert.equal(out.totalBytes, new TextEncoder().encode(out.text).length);
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
  /**
   * A 0600 file holding the raw stream from byte 0, when it overflowed (never
   * a path that is gone when the result is made). The executor may delete it
   * later to stay within its spill budget (oldest first), so check that it
   * still exists before naming it.
   */
  spillPath?: string;
  /** False when the spill file stopped at its cap or at a fault (or there is no spill file). */
  spillComplete: boolean;
  /**
   * Why the spill file stopped early or is missing, in short
   * (`ENOSPC: no space left on device`, `EROFS: read-only file system`,
   * `spill budget of 1073741824 bytes reached`, or that the file was
   * removed); what was written before a write fault or the budget's end stays
   * in `spillPath` as a partial spill. Absent when nothing went wrong.
   */
  spillError?: string;
  /** Bytes that were not valid UTF-8 and were replaced in `text`. */
  invalidUtf8Bytes: number;
  /**
   * Set when the executor stopped reading the stream before its end, and
   * why: after the command exited and its processes were stopped, a process
   * that would not die or that the census cannot see still held the pipe
   * and sent nothing for a second (or kept writing). Bytes after
   * `totalBytes` may be missing then; how many cannot be known (they were
   * still in the pipe, or not written yet). Absent when the stream was read
   * to its end, however long that took.
   */
  cut?: string;
  /**
   * Set when the stream is not text (`text` then holds its bytes decoded
   * lossily); the raw bytes are in `spillPath`.
   */
  binary?: BinaryStream;
}

/**
 * Processes that a command left behind and the executor stopped. When no
 * census of the command's processes could be taken, `censusFailed` says why:
 * its process group was killed anyway, but `killed` and `survivors` then
 * count only what was seen, not what was left.
 *
 * @example
 * ```ts
 * import type { StrayReport } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * function leftovers(strays: StrayReport): string {
 *   if (strays.censusFailed !== undefined) return `unknown: ${strays.censusFailed}`;
 *   return `${strays.killed} killed, ${strays.survivors.length} would not die`;
 * }
 * assert.equal(leftovers({ killed: 1, survivors: [] }), "1 killed, 0 would not die");
 * ```
 */
export interface StrayReport {
  /**
   * How many leftover processes the executor found and killed after the shell
   * exited. Under the bwrap backend, the processes its pid namespace ended
   * with a shell that exited by itself are counted too (not those of a
   * command the executor killed: the namespace ends with that kill).
   */
  killed: number;
  /** Pids that would not die. */
  survivors: number[];
  /** Why no census could be taken (it is absent when one was). */
  censusFailed?: string;
  /**
   * What the census cannot find on this platform, whatever the command did:
   * on macOS (no `/proc`), a process that left the command's process group
   * and cleared its environment. Said once per executor, on its first
   * command's report (with limits or without, confined or not; a sandbox's
   * `enforcement.gaps` says it too), and absent on every later one and
   * where there is no such gap (Linux).
   */
  gaps?: string[];
}

/**
 * Everything about a finished foreground run. At most one of `timedOut`,
 * `idledOut` and `aborted` is true: the first cause that ended it.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import type { BashRunResult } from "@shellseam/bash/seam";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * function summary(result: BashRunResult): string {
 *   if (result.timedOut) return `timed out after ${result.timeoutMs} ms`;
 *   return result.signal ?? `exit ${result.exitCode}`;
 * }
 * await using executor = new LocalBashExecutor();
 * assert.equal(summary(await executor.run({ command: "exit 3" })), "exit 3");
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
  /**
   * True when the executor's disposal killed it before it finished; absent
   * otherwise. (It is no timeout, idle stop or abort.)
   */
  disposed?: boolean;
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
  /** The resource limits that applied and what they could not enforce; absent when none did. */
  limits?: AppliedResourceLimits;
  /** The resource limit a failed command ran into, and how that is known. */
  limitHit?: ResourceLimitHit;
  /**
   * What the request's `onOutput` callback threw, when it did (it was not
   * called again after that; the run and this result are whole).
   */
  onOutputError?: string;
  /**
   * From a remote executor: true when the connection to the remote host was
   * lost while the command ran. The remote side kills the command when its
   * channel closes; exit code and strays are then unknown (null and 0).
   */
  connectionLost?: boolean;
}
