import type { BashOutputEvent } from "./output.ts";
import type { BinaryStream, StrayReport } from "./result.ts";
import type { ResourceLimitHit } from "./limits.ts";
import type { BashSandboxInfo, SandboxViolation } from "./sandbox.ts";

/**
 * Where a background process stands: `killed` covers any end by a signal,
 * including one the command sent itself.
 *
 * @example
 * ```ts
 * import type { BashProcessStatus } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const status: BashProcessStatus = "running";
 * assert.equal(status, "running");
 * ```
 */
export type BashProcessStatus = "running" | "completed" | "killed";

/**
 * One stream of a `readOutput()` call: the text since the previous read,
 * with the same field names as `CollectedOutput` for what was left
 * out and where the whole stream is.
 *
 * @example
 * ```ts
 * import type { BashStreamRead } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const read: BashStreamRead = { text: "ready\n", truncated: false, omittedBytes: 0, spillComplete: false };
 * assert.equal(read.text, "ready\n");
 * ```
 */
export interface BashStreamRead {
  /** The decoded text since the previous read; one omission marker where bytes are missing. */
  text: string;
  /** True when bytes since the previous read were no longer in memory (they are in the spill file, if complete). */
  truncated: boolean;
  /** Bytes missing from `text`. */
  omittedBytes: number;
  /** The spill file of the whole stream, while it exists (disposal may remove it). */
  spillPath?: string;
  /** True while the spill file holds every byte of the stream so far. */
  spillComplete: boolean;
  /** Why the spill file is missing or partial (`ENOSPC: no space left on device`), if it is. */
  spillError?: string;
  /** Set when the stream is not text; the raw bytes are in `spillPath`. */
  binary?: BinaryStream;
  /**
   * Set once the process settled when the executor stopped reading the
   * stream before its end, and why (see `CollectedOutput.cut`).
   */
  cut?: string;
}

/**
 * What one `readOutput()` call returns: each stream since the previous read,
 * and the status at the time of the read.
 *
 * @example
 * ```ts
 * import type { BashProcessRead } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * function describe(read: BashProcessRead): string {
 *   const { stdout } = read;
 *   return stdout.truncated ? `${stdout.omittedBytes} bytes only in ${stdout.spillPath}` : stdout.text;
 * }
 * const quiet = { text: "", truncated: false, omittedBytes: 0, spillComplete: false };
 * const read: BashProcessRead = {
 *   stdout: { ...quiet, text: "hi\n" },
 *   stderr: quiet,
 *   status: "completed",
 *   exitCode: 0,
 *   signal: null,
 * };
 * assert.equal(describe(read), "hi\n");
 * ```
 */
export interface BashProcessRead {
  /** Stdout since the last read. */
  stdout: BashStreamRead;
  /** Stderr since the last read. */
  stderr: BashStreamRead;
  /** Status at the time of the read. */
  status: BashProcessStatus;
  /** Exit code once completed. */
  exitCode: number | null;
  /** Ending signal once killed. */
  signal: string | null;
  /**
   * Protected paths this read found planted by the still running command and
   * moved away (a sandboxing executor checks at each read); absent when none.
   * Each is named by the read that moved it, and again in the process's
   * `sandbox.violations` once it settles.
   */
  violations?: SandboxViolation[];
}

/**
 * A command running in the background, as `start()` returns it.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import type { BashProcess } from "@shellseam/bash/seam";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * async function collect(process: BashProcess): Promise<string> {
 *   await process.done;
 *   const { stdout } = process.readOutput();
 *   await process.release();
 *   return stdout.text;
 * }
 * await using executor = new LocalBashExecutor();
 * assert.equal(await collect(await executor.start({ command: "echo hi" })), "hi\n");
 * ```
 */
export interface BashProcess {
  /** The command it runs. */
  readonly command: string;
  /** Pid of the shell, which is also its process group and session id. */
  readonly pid: number;
  /** Live status. */
  readonly status: BashProcessStatus;
  /**
   * The shell's exit code once it exited by itself, else null. A command that
   * answers a kill by exiting is `killed` and still has its exit code.
   */
  readonly exitCode: number | null;
  /** The signal that ended the shell, else null (also for a killed command that exited). */
  readonly signal: string | null;
  /** True once the executor's disposal killed it (its status is then `killed`). */
  readonly disposed?: boolean;
  /** Once settled: the resource limit it ran into, and how that is known. */
  readonly limitHit?: ResourceLimitHit;
  /**
   * Once settled: why the executor could not watch it to the end (its output
   * could not be read, so it was stopped and its output is incomplete);
   * absent when nothing went wrong.
   */
  readonly error?: string;
  /** Settles when the process and its output have settled; never rejects. */
  readonly done: Promise<void>;
  /** Sandbox facts, from a sandboxing executor, once settled. */
  readonly sandbox?: BashSandboxInfo;
  /**
   * Once settled: the processes it left behind that were stopped, those that
   * would not die, and whether the census to find them failed.
   */
  readonly strays?: StrayReport;
  /** Reads output since the previous read (consuming; valid after exit too). */
  readOutput(): BashProcessRead;
  /**
   * The whole output from its first byte, as it arrives, until the process
   * settled and every byte was read: text per stream (never a split
   * character), and a gap event that says how many bytes, from which offset,
   * are lost and why, when the executor kept them neither in memory nor in
   * the spill file (past `maxSpillBytes`, a spill fault, a removed file). A
   * stream the executor stopped reading before its end (its `cut`) ends with
   * a gap whose `omittedBytes` is null, since how much is missing cannot be
   * known.
   * Each call starts a reader of its own; reading never holds up the
   * command, and does not move `readOutput()`'s position.
   */
  output(): AsyncIterableIterator<BashOutputEvent>;
  /**
   * Writes to stdin; needs `keepStdinOpen: true` (or a `terminal`) and a
   * running process. In a terminal the bytes are typed: control keys pass
   * through (`"\x03"` is Ctrl-C, `"\x1b"` Escape, `"\x1b[A"` the up arrow).
   */
  write(data: string | Uint8Array): Promise<void>;
  /**
   * Changes the size of the process's terminal (see `BashExecRequest.terminal`),
   * which tells its foreground programs (SIGWINCH). Rejects with
   * `BashConfigError` for a bad size, a process started without a terminal,
   * or one that is no longer running.
   */
  resize(rows: number, cols: number): Promise<void>;
  /** Closes stdin, so the command sees end of file. */
  closeStdin(): Promise<void>;
  /** Kills the process group: true the first time, false after that or after a natural exit. */
  kill(): Promise<boolean>;
  /**
   * Frees what the settled process holds (its output buffers) and deletes its
   * spill files, once its owner is done with it; `readOutput()` throws
   * afterwards. Calling it again does nothing. Rejects with `BashConfigError`
   * while the process is running: kill it or await `done` first.
   */
  release(): Promise<void>;
}
