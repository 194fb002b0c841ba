import type { BashProcess } from "./process.ts";
import type { BashExecRequest, BashExecSpec } from "./request.ts";
import type { BashRunResult } from "./result.ts";
import type { SandboxMode } from "./sandbox.ts";

/**
 * The bash seam: what a bash backend does (run a foreground command, start a
 * background one), not how. Subclass it for a new backend; callers hold this
 * type and never the implementation.
 *
 * Contract:
 * - `resolve()` throws `BashConfigError` for invalid values.
 * - `run()` rejects only when the command could not start (`BashSpawnError`);
 *   a non-zero exit, a timeout or an abort resolves with a `BashRunResult`.
 * - `start()` resolves as soon as the process is spawned; no timeout applies.
 * - Disposal kills every running process and awaits its exit; `run()` and
 *   `start()` reject after it.
 *
 * `@shellseam/bash/testing` holds this contract as a conformance suite to run
 * against any subclass.
 *
 * @example A backend that answers without running anything
 * ```ts
 * import {
 *   BashExecutor,
 *   type BashExecRequest,
 *   type BashExecSpec,
 *   type BashProcess,
 *   type BashRunResult,
 * } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * class EchoExecutor extends BashExecutor {
 *   resolve(request: BashExecRequest): BashExecSpec {
 *     return { ...request, workdir: "/", timeoutMs: 1000, stdoutMaxBytes: 1000, sandboxPolicy: null };
 *   }
 *   run(spec: BashExecSpec): Promise<BashRunResult> {
 *     const out = { truncated: false, omittedBytes: 0, spillComplete: true, invalidUtf8Bytes: 0 };
 *     return Promise.resolve({
 *       exitCode: 0, signal: null, timedOut: false, idledOut: false, aborted: false,
 *       timeoutMs: spec.timeoutMs, durationMs: 0, strays: { killed: 0, survivors: [] }, scrubbedEnv: [],
 *       stdout: { ...out, text: spec.command, totalBytes: spec.command.length },
 *       stderr: { ...out, text: "", totalBytes: 0 },
 *     });
 *   }
 *   start(_spec: BashExecSpec): Promise<BashProcess> {
 *     return Promise.reject(new Error("Background runs are not supported"));
 *   }
 *   [Symbol.asyncDispose](): Promise<void> {
 *     return Promise.resolve();
 *   }
 * }
 *
 * const executor = new EchoExecutor();
 * const result = await executor.run(executor.resolve({ command: "hi" }));
 * assert.equal(result.stdout.text, "hi");
 * assert.equal(executor.sandboxMode, undefined);
 * ```
 */
export abstract class BashExecutor implements AsyncDisposable {
  /** Fills a request from the executor's defaults and checks its values. */
  abstract resolve(request: BashExecRequest): BashExecSpec;

  /** Runs a command in the foreground and resolves when it is finished. */
  abstract run(spec: BashExecSpec): Promise<BashRunResult>;

  /** Starts a command in the background and resolves once it is spawned. */
  abstract start(spec: BashExecSpec): Promise<BashProcess>;

  /**
   * The default mode of a sandboxing executor; `undefined` means this executor
   * does not sandbox. The tool layer reads it to decide whether to offer
   * escalation fields.
   */
  get sandboxMode(): SandboxMode | undefined {
    return undefined;
  }

  /** Kills every running process, awaits every exit, and releases resources. */
  abstract [Symbol.asyncDispose](): Promise<void>;
}
