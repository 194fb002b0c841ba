import type { BashOutputEvent } from "./output.ts";
import type { StrayReport } from "./result.ts";
import type { ResourceLimitHit } from "./limits.ts";
import type { BashSandboxInfo, SandboxViolation } from "./sandbox.ts";

/**
 * Where a background process stands: `killed` covers any end by a signal,
 * including one the command sent itself.
 *
 * @example
 * ```ts
 * import type { BashProcessStatus } from "@shellseam/bash/seam";
 *
 * const status: BashProcessStatus = "running";
 * console.log(status);
 * ```
 */
export type BashProcessStatus = "running" | "completed" | "killed";

/**
 * What one `readOutput()` call returns: the bytes since the previous read.
 *
 * @example
 * ```ts
 * import type { BashProcessRead } from "@shellseam/bash/seam";
 *
 * function describe(read: BashProcessRead): string {
 *   return read.lossy ? `${read.droppedBytes} bytes only in ${read.stdoutSpillPath}` : read.stdout;
 * }
 * console.log(typeof describe);
 * ```
 */
export interface BashProcessRead {
  /** Stdout since the last read. */
  stdout: string;
  /** Stderr since the last read. */
  stderr: string;
  /** True when some bytes since the last read are no longer retained in memory. */
  lossy: boolean;
  /** How many bytes were skipped over, both streams together. */
  droppedBytes: number;
  /** The spill file that holds all of stdout, while one exists (disposal may remove it). */
  stdoutSpillPath?: string;
  /** The spill file that holds all of stderr, while one exists (disposal may remove it). */
  stderrSpillPath?: string;
  /** Why stdout's spill file is missing or partial (`ENOSPC: no space left on device`), if it is. */
  stdoutSpillError?: string;
  /** Why stderr's spill file is missing or partial, if it is. */
  stderrSpillError?: string;
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
 * @example
 * ```ts
 * import type { BashProcess } from "@shellseam/bash/seam";
 *
 * async function collect(process: BashProcess): Promise<string> {
 *   await process.done;
 *   return process.readOutput().stdout;
 * }
 * console.log(typeof collect);
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
   * the spill file (past `maxSpillBytes`, a spill fault, a removed file).
   * Each call starts a reader of its own; reading never holds up the
   * command, and does not move `readOutput()`'s position.
   */
  output(): AsyncIterableIterator<BashOutputEvent>;
  /** Writes to stdin; needs `keepStdinOpen: true` and a running process. */
  write(data: string | Uint8Array): Promise<void>;
  /** Closes stdin, so the command sees end of file. */
  closeStdin(): Promise<void>;
  /** Kills the process group: true the first time, false after that or after a natural exit. */
  kill(): Promise<boolean>;
}
