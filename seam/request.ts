import type { ManagedEnv } from "./env.ts";
import type { ResourceLimits } from "./limits.ts";
import type { BashLiveOutputChunk } from "./output.ts";
import type { SandboxPolicy } from "./sandbox.ts";
import type { BashTerminalSize } from "./terminal.ts";

/**
 * What a caller asks an executor to run. Everything but `command` is optional
 * and filled from the executor's defaults by `resolve()` (which `run()` and
 * `start()` call for a plain request). A spec is a request with every field
 * filled, so a copy of one resolves to the same spec.
 *
 * @example
 * ```ts
 * import type { BashExecRequest } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const request: BashExecRequest = { command: "ls -la", workdir: "src", timeoutMs: 10_000 };
 * assert.equal(request.command, "ls -la");
 * ```
 */
export interface BashExecRequest {
  /** The bash source, run as `bash -c <command>`. */
  command: string;
  /** Directory to run in; a relative path resolves against the executor's cwd. */
  workdir?: string;
  /** Wall-clock limit for a foreground run, in milliseconds, from the moment the command starts. */
  timeoutMs?: number;
  /** Kill a foreground run after this long without any output, in milliseconds. */
  idleTimeoutMs?: number;
  /** Stdout memory budget for a trusted in-process caller of `run()`. */
  stdoutMaxBytes?: number;
  /** Aborting it kills the command (a pre-aborted signal spawns nothing). */
  signal?: AbortSignal;
  /** Bytes written to stdin, which is then closed (unless `keepStdinOpen`). */
  stdin?: string | Uint8Array;
  /** Background only: leave stdin a pipe for `BashProcess.write()`. */
  keepStdinOpen?: boolean;
  /**
   * Background only: run the command in a pseudo-terminal of this size, as
   * its controlling terminal and its stdin, stdout and stderr (stdout and
   * stderr merge into the process's stdout, as on a screen). Its input is
   * `BashProcess.write()` (stdin stays open), its size `BashProcess.resize()`;
   * it gets `TERM=xterm-256color` and none of the overrides that keep a
   * command from paging, colouring or opening an editor, unless `env` sets them.
   */
  terminal?: BashTerminalSize;
  /** Extra environment; keys may not carry the managed prefix. */
  env?: Record<string, string>;
  /** Managed facts, merged last; every key carries the managed prefix. */
  managedEnv?: ManagedEnv;
  /**
   * Per-call sandbox policy; absent or `null`, a sandboxing executor stamps
   * its default (and an executor that does not sandbox runs unconfined).
   */
  sandboxPolicy?: SandboxPolicy | null;
  /**
   * Resource limits of this call, over the executor's (`null` lifts one);
   * see {@linkcode ResourceLimits}.
   */
  limits?: ResourceLimits;
  /**
   * Foreground only: called with each piece of output as it arrives, as its
   * raw bytes and as text decoded per stream without splitting a character
   * (as the result decodes it: UTF-16 after a byte-order mark, else UTF-8;
   * see {@linkcode BashLiveOutputChunk}). It is called synchronously
   * from the reading loop, so a slow callback slows the reading (never the
   * result: every byte still reaches it and the result). If it throws (or
   * returns a promise that rejects), it is not called again for this run,
   * the run goes on, and the result's `onOutputError` says what it threw.
   */
  onOutput?: (chunk: BashLiveOutputChunk) => void;
}

/**
 * A request with the executor's defaults filled in and its values checked.
 * `sandboxPolicy` is required but nullable, so a forgotten policy is a
 * visible `null` rather than a missing key.
 *
 * @example
 * ```ts
 * import type { BashExecSpec } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const spec: BashExecSpec = {
 *   command: "echo hi",
 *   workdir: "/tmp",
 *   timeoutMs: 120_000,
 *   stdoutMaxBytes: 64_000,
 *   sandboxPolicy: null,
 * };
 * assert.equal(spec.workdir, "/tmp");
 * ```
 */
export interface BashExecSpec extends BashExecRequest {
  /** Absolute directory to run in. */
  workdir: string;
  /** Wall-clock limit for a foreground run, in milliseconds, from the moment the command starts. */
  timeoutMs: number;
  /** Stdout memory budget, in bytes. */
  stdoutMaxBytes: number;
  /** The confinement to apply, or `null` for none. */
  sandboxPolicy: SandboxPolicy | null;
}
