import type { BashProcess } from "./process.ts";
import type { BashExecRequest, BashExecSpec } from "./request.ts";
import type { BashRunResult } from "./result.ts";
import type { SandboxMode, SandboxPolicy } from "./sandbox.ts";

/**
 * What an executor allows and fills in, so a caller (the tool layer) learns
 * them without resolving a request.
 *
 * @example
 * ```ts
 * import type { BashExecutorLimits } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const limits: BashExecutorLimits = {
 *   defaultTimeoutMs: 120_000,
 *   maxTimeoutMs: 600_000,
 *   outputBytes: 64_000,
 *   maxStdoutBytes: 256 * 1024 * 1024,
 *   maxSpillBytes: 1024 ** 3,
 * };
 * assert.ok(limits.defaultTimeoutMs <= (limits.maxTimeoutMs ?? Infinity));
 * ```
 */
export interface BashExecutorLimits {
  /** The wall-clock limit of a foreground call that sets none, in milliseconds. */
  readonly defaultTimeoutMs: number;
  /** The greatest wall-clock limit a call gets (a larger one is capped), or null for none. */
  readonly maxTimeoutMs: number | null;
  /** Bytes of each stream kept in memory by default (head and tail). */
  readonly outputBytes: number;
  /** The greatest `stdoutMaxBytes` a call may ask for. */
  readonly maxStdoutBytes: number;
  /** Bytes of one stream kept on disk once it overflows memory (0: no spill file). */
  readonly maxSpillBytes: number;
}

/** Specs that `resolve()` returned: frozen, so the mark cannot outlive a change. */
const resolvedSpecs = new WeakSet<BashExecSpec>();

/**
 * The bash seam: what a bash backend does (run a foreground command, start a
 * background one), not how. Subclass it for a new backend; callers hold this
 * type and never the implementation.
 *
 * Contract:
 * - `resolve()` throws `BashConfigError` for invalid values, and returns a
 *   frozen spec marked as resolved (`markResolved()`).
 * - `run()` and `start()` take a plain request and resolve it, or take a spec
 *   `resolve()` returned as it is (`specOf()`); a copy of a spec is a request.
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
 *   readonly limits = {
 *     defaultTimeoutMs: 1000, maxTimeoutMs: 1000, outputBytes: 1000, maxStdoutBytes: 1000, maxSpillBytes: 0,
 *   };
 *   resolve(request: BashExecRequest): BashExecSpec {
 *     return this.markResolved({ ...request, workdir: "/", timeoutMs: 1000, stdoutMaxBytes: 1000, sandboxPolicy: null });
 *   }
 *   run(request: BashExecRequest): Promise<BashRunResult> {
 *     const spec = this.specOf(request);
 *     const out = { truncated: false, omittedBytes: 0, spillComplete: true, invalidUtf8Bytes: 0 };
 *     return Promise.resolve({
 *       exitCode: 0, signal: null, timedOut: false, idledOut: false, aborted: false,
 *       timeoutMs: spec.timeoutMs, durationMs: 0, strays: { killed: 0, survivors: [] }, scrubbedEnv: [],
 *       stdout: { ...out, text: spec.command, totalBytes: spec.command.length },
 *       stderr: { ...out, text: "", totalBytes: 0 },
 *     });
 *   }
 *   start(_request: BashExecRequest): Promise<BashProcess> {
 *     return Promise.reject(new Error("Background runs are not supported"));
 *   }
 *   [Symbol.asyncDispose](): Promise<void> {
 *     return Promise.resolve();
 *   }
 * }
 *
 * const executor = new EchoExecutor();
 * const result = await executor.run({ command: "hi" });
 * assert.equal(result.stdout.text, "hi");
 * const spec = executor.resolve({ command: "hi" });
 * assert.ok(Object.isFrozen(spec));
 * assert.equal(executor.sandboxMode, undefined);
 * ```
 */
export abstract class BashExecutor implements AsyncDisposable {
  /**
   * Fills a request from the executor's defaults and checks its values. The
   * spec it returns is frozen (with its policy, env and limits) and marked,
   * so `run()` and `start()` take it without checking it again; a copy or a
   * spread is not marked and is checked again as a request.
   */
  abstract resolve(request: BashExecRequest): BashExecSpec;

  /**
   * Runs a command in the foreground and resolves when it is finished. Takes
   * a request (resolved first) or a spec that `resolve()` returned.
   */
  abstract run(request: BashExecRequest): Promise<BashRunResult>;

  /**
   * Starts a command in the background and resolves once it is spawned.
   * Takes a request (resolved first) or a spec that `resolve()` returned.
   */
  abstract start(request: BashExecRequest): Promise<BashProcess>;

  /** The executor's time and output limits (see {@linkcode BashExecutorLimits}). */
  abstract get limits(): BashExecutorLimits;

  /**
   * The default mode of a sandboxing executor; `undefined` means this executor
   * does not sandbox. The tool layer reads it to decide whether to offer
   * escalation fields.
   */
  get sandboxMode(): SandboxMode | undefined {
    return undefined;
  }

  /**
   * The policy a call without its own gets from a sandboxing executor;
   * `undefined` means this executor does not sandbox. The tool layer runs a
   * call in another mode by passing this policy with that mode.
   */
  get defaultSandboxPolicy(): Readonly<SandboxPolicy> | undefined {
    return undefined;
  }

  /** Kills every running process, awaits every exit, and releases resources. */
  abstract [Symbol.asyncDispose](): Promise<void>;

  /**
   * For `resolve()` implementations: freezes a finished spec (and the policy,
   * env maps and limits in it, copied first) and marks it as resolved.
   */
  protected markResolved(spec: BashExecSpec): BashExecSpec {
    const frozen: BashExecSpec = { ...spec };
    if (spec.env !== undefined) frozen.env = Object.freeze({ ...spec.env });
    if (spec.managedEnv !== undefined) frozen.managedEnv = Object.freeze({ ...spec.managedEnv });
    if (spec.limits !== undefined) frozen.limits = Object.freeze({ ...spec.limits });
    const policy = spec.sandboxPolicy;
    if (policy !== null) {
      // Its lists (writable roots, protected paths, ...) are frozen copies too.
      const copy: Record<string, unknown> = { ...policy };
      for (const [key, value] of Object.entries(copy)) {
        if (Array.isArray(value)) copy[key] = Object.freeze([...value]);
      }
      frozen.sandboxPolicy = Object.freeze(copy) as unknown as SandboxPolicy;
    }
    Object.freeze(frozen);
    resolvedSpecs.add(frozen);
    return frozen;
  }

  /**
   * For `run()` and `start()` implementations: the spec itself when
   * `resolve()` returned it, else `resolve(request)` (which throws
   * `BashConfigError` for a bad value).
   */
  protected specOf(request: BashExecRequest): BashExecSpec {
    return resolvedSpecs.has(request as BashExecSpec)
      ? request as BashExecSpec
      : this.resolve(request);
  }

  /**
   * The same as disposal (`await using`), for code that cannot use
   * `await using` (plain JavaScript on Node 22): call it in a `finally`.
   *
   * @example
   * ```ts
   * import { LocalBashExecutor } from "@shellseam/bash/local";
   * import assert from "node:assert/strict";
   *
   * const executor = new LocalBashExecutor();
   * try {
   *   const result = await executor.run({ command: "echo hi" });
   *   assert.equal(result.stdout.text, "hi\n");
   * } finally {
   *   await executor.close();
   * }
   * await assert.rejects(executor.run({ command: "true" }));
   * ```
   */
  close(): Promise<void> {
    return this[Symbol.asyncDispose]();
  }
}
