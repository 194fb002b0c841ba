import { mkdtempSync, rmSync, statSync } from "node:fs";
import { isAbsolute, join, resolve as resolvePath } from "node:path";
import {
  BashConfigError,
  type BashExecRequest,
  type BashExecSpec,
  BashExecutor,
  type BashProcess,
  type BashRunResult,
  type BashSandboxInfo,
  BashSpawnError,
} from "../seam/mod.ts";
import { messageOf } from "../seam/_message.ts";
import { RunningCommand } from "./_command.ts";
import {
  fitsTimer,
  type LocalBashExecutorConfig,
  positiveFinite,
  resolveConfig,
  type ResolvedLocalBashExecutorConfig,
  wholeNumber,
} from "./_config.ts";
import { type BaseEnv, baseEnv, BASH_FLAGS, commandEnv } from "./_env.ts";
import { OutputCollector } from "./_output.ts";
import { LocalBashProcess } from "./_process.ts";
import { checkCallValues, checkText } from "./_request.ts";
import { SpillBudget } from "./_spill_budget.ts";
import { findOnPath } from "./_session.ts";
import type { Launch, LaunchOutcome, LaunchPlan } from "./launch.ts";
import { runtime } from "./runtime/mod.ts";

const encoder = new TextEncoder();

/**
 * Runs bash commands on this machine: `bash -c <command>`, non-login, one
 * fresh shell per call, each in a new session and process group, with a
 * scrubbed environment, bounded output (head + tail in memory, the whole
 * stream in a spill file), wall and idle clocks, abort, and a sweep that
 * leaves no process of a command behind (except one that called setsid
 * itself: a documented gap that the sandbox's pid namespace closes).
 *
 * Subclasses (the sandbox) rewrite what is spawned in {@linkcode planLaunch}.
 *
 * @example Run a command
 * ```ts
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor({ cwd: "/tmp" });
 * const result = await executor.run(executor.resolve({ command: "echo hi; echo oops >&2; exit 3" }));
 * assert.equal(result.stdout.text, "hi\n");
 * assert.equal(result.stderr.text, "oops\n");
 * assert.equal(result.exitCode, 3);
 * ```
 *
 * @example Start a background command and read its output
 * ```ts
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor();
 * const process = await executor.start(executor.resolve({ command: "cat", keepStdinOpen: true }));
 * await process.write("ping\n");
 * await process.closeStdin();
 * await process.done;
 * assert.equal(process.readOutput().stdout, "ping\n");
 * assert.equal(process.status, "completed");
 * ```
 */
export class LocalBashExecutor extends BashExecutor {
  /** The validated config, defaults filled in. */
  readonly config: ResolvedLocalBashExecutorConfig;
  readonly #bash: string | null;
  readonly #env: BaseEnv;
  readonly #running = new Set<RunningCommand>();
  readonly #launching = new Set<Promise<unknown>>();
  readonly #spillBudget: SpillBudget;
  #disposed = false;
  #dir: string | null = null;

  /** Validates the config (throws `BashConfigError` naming the field) and resolves bash once. */
  constructor(config: LocalBashExecutorConfig = {}) {
    super();
    this.config = resolveConfig(config);
    this.#bash = findOnPath("bash");
    this.#env = baseEnv();
    this.#spillBudget = new SpillBudget(this.config.maxSpillTotalBytes, () => this.#dir);
  }

  /**
   * Fills a request from the defaults: workdir resolved against `cwd`,
   * `timeoutMs` defaulted and capped at `maxTimeoutMs`, `stdoutMaxBytes`
   * defaulted to `maxOutputBytes`, `sandboxPolicy` null when absent. Throws
   * `BashConfigError` naming the field for a timeout that is not a positive
   * finite number (or that no timer can wait: over 2147483647 ms for
   * `idleTimeoutMs`), env keys in the wrong namespace, env values that are
   * not strings, a NUL byte in the command, the workdir or the env, and a
   * `signal` that is not an `AbortSignal`.
   *
   * @example
   * ```ts
   * import { LocalBashExecutor } from "@shellseam/bash/local";
   * import { BashConfigError } from "@shellseam/bash/seam";
   * import assert from "node:assert/strict";
   *
   * await using executor = new LocalBashExecutor({ cwd: "/srv" });
   * const spec = executor.resolve({ command: "ls", workdir: "app", timeoutMs: 10 ** 9 });
   * assert.equal(spec.workdir, "/srv/app");
   * assert.equal(spec.timeoutMs, 600_000);
   * assert.equal(spec.sandboxPolicy, null);
   * assert.throws(() => executor.resolve({ command: "ls", timeoutMs: 0 }), BashConfigError);
   * ```
   */
  resolve(request: BashExecRequest): BashExecSpec {
    checkCallValues(request);
    const { config } = this;
    const timeoutMs = Math.min(
      positiveFinite("timeoutMs", request.timeoutMs ?? config.timeoutMs),
      config.maxTimeoutMs,
    );
    const stdoutMaxBytes = wholeNumber(
      "stdoutMaxBytes",
      request.stdoutMaxBytes ?? config.maxOutputBytes,
      1,
    );
    const workdir = checkText("workdir", request.workdir ?? ".", "a directory path");
    return {
      ...request,
      workdir: resolvePath(config.cwd, workdir),
      timeoutMs,
      stdoutMaxBytes,
      sandboxPolicy: request.sandboxPolicy ?? null,
    };
  }

  /**
   * Runs a command in the foreground. Rejects with `BashSpawnError` only when
   * it cannot start (missing workdir, missing bash, pre-aborted signal,
   * disposed executor), and with `BashConfigError` for a spec that did not
   * come from `resolve()`; a non-zero exit, a timeout or an abort resolves.
   *
   * @example A timeout resolves
   * ```ts
   * import { LocalBashExecutor } from "@shellseam/bash/local";
   * import assert from "node:assert/strict";
   *
   * await using executor = new LocalBashExecutor();
   * const result = await executor.run(executor.resolve({ command: "sleep 5", timeoutMs: 100 }));
   * assert.equal(result.timedOut, true);
   * assert.equal(result.signal, "SIGTERM");
   * ```
   */
  async run(spec: BashExecSpec): Promise<BashRunResult> {
    const { running, plan } = await this.#launch(spec, false);
    await running.settled;
    if (running.failure !== undefined) throw running.failure;
    const stderr = running.stderr.collect();
    const exit = running.exit ?? { code: null, signal: null };
    const result: BashRunResult = {
      exitCode: exit.code,
      signal: exit.signal,
      timedOut: running.cause === "timeout",
      idledOut: running.cause === "idle",
      aborted: running.cause === "abort",
      timeoutMs: spec.timeoutMs,
      durationMs: running.durationMs,
      stdout: running.stdout.collect(),
      stderr,
      strays: running.strays,
      scrubbedEnv: [...this.#env.scrubbed],
    };
    const sandbox = describe(plan, running, stderr.text);
    if (sandbox !== undefined) result.sandbox = sandbox;
    return result;
  }

  /**
   * Starts a command in the background and resolves once it is spawned; no
   * timeout applies (aborting `signal` kills it). Rejects like
   * {@linkcode run} when it cannot start.
   *
   * @example Kill a background command
   * ```ts
   * import { LocalBashExecutor } from "@shellseam/bash/local";
   * import assert from "node:assert/strict";
   *
   * await using executor = new LocalBashExecutor();
   * const process = await executor.start(executor.resolve({ command: "sleep 30" }));
   * assert.equal(process.status, "running");
   * assert.equal(await process.kill(), true);
   * assert.equal(await process.kill(), false);
   * assert.equal(process.status, "killed");
   * ```
   */
  async start(spec: BashExecSpec): Promise<BashProcess> {
    const { running, plan } = await this.#launch(spec, true);
    return new LocalBashProcess(
      spec.command,
      running,
      spec.keepStdinOpen === true,
      plan.describe && (() => describe(plan, running, running.stderr.collect().text)),
    );
  }

  /**
   * The hook a subclass uses to change what is spawned (a sandbox wraps the
   * launch). Called by `run()` and `start()` after validation and before
   * spawning, with `{ program: <absolute bash>, args: ["--norc", "--noprofile", "-c", command], cwd, env }`.
   * The session strategy is applied to the returned launch. Rejecting makes
   * the call reject with that error, and nothing is spawned.
   *
   * @example Prefix every command
   * ```ts
   * import { type Launch, LocalBashExecutor, type LaunchPlan } from "@shellseam/bash/local";
   * import type { BashExecSpec } from "@shellseam/bash/seam";
   * import assert from "node:assert/strict";
   *
   * class Traced extends LocalBashExecutor {
   *   protected override planLaunch(_spec: BashExecSpec, launch: Launch): Promise<LaunchPlan> {
   *     const command = `echo traced; ${launch.args.at(-1)}`;
   *     return Promise.resolve({
   *       launch: { ...launch, args: [...launch.args.slice(0, -1), command] },
   *       describe: () => ({ mode: "danger-full-access", backend: "none", denied: false }),
   *     });
   *   }
   * }
   * await using executor = new Traced();
   * const result = await executor.run(executor.resolve({ command: "echo hi" }));
   * assert.equal(result.stdout.text, "traced\nhi\n");
   * assert.equal(result.sandbox?.backend, "none");
   * ```
   */
  protected planLaunch(_spec: BashExecSpec, launch: Launch): Promise<LaunchPlan> {
    return Promise.resolve({ launch });
  }

  /**
   * The executor's private 0700 directory (created on first use; it also
   * holds the spill files). Removed at disposal unless `keepSpillFiles`;
   * rejects with `BashSpawnError` once the executor is disposed.
   *
   * @example
   * ```ts
   * import { LocalBashExecutor } from "@shellseam/bash/local";
   * import { statSync } from "node:fs";
   * import assert from "node:assert/strict";
   *
   * class Peek extends LocalBashExecutor {
   *   dir(): Promise<string> {
   *     return this.privateDir();
   *   }
   * }
   * await using executor = new Peek();
   * assert.equal(statSync(await executor.dir()).mode & 0o777, 0o700);
   * ```
   */
  protected privateDir(): Promise<string> {
    if (this.#disposed) {
      return Promise.reject(disposedError());
    }
    try {
      return Promise.resolve(this.#privateDir());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Kills every running command, foreground and background (SIGTERM, then
   * SIGKILL after `killGraceMs`), awaits every exit, and removes the private
   * directory unless `keepSpillFiles`. `run()` and `start()` reject afterwards.
   *
   * @example
   * ```ts
   * import { LocalBashExecutor } from "@shellseam/bash/local";
   * import { BashSpawnError } from "@shellseam/bash/seam";
   * import assert from "node:assert/strict";
   *
   * const executor = new LocalBashExecutor();
   * const process = await executor.start(executor.resolve({ command: "sleep 30" }));
   * await executor[Symbol.asyncDispose]();
   * assert.equal(process.status, "killed");
   * await assert.rejects(executor.run(executor.resolve({ command: "true" })), BashSpawnError);
   * ```
   */
  async [Symbol.asyncDispose](): Promise<void> {
    this.#disposed = true;
    await Promise.allSettled(this.#launching);
    for (const running of this.#running) running.kill("dispose");
    await Promise.all([...this.#running].map((running) => running.settled));
    if (this.#dir !== null && !this.config.keepSpillFiles) {
      rmSync(this.#dir, { recursive: true, force: true });
      this.#dir = null;
    }
  }

  #privateDir(): string {
    this.#dir ??= mkdtempSync(join(this.config.spillDir, "shellseam-"));
    return this.#dir;
  }

  #spillDir = (): string | null => {
    try {
      return this.#privateDir();
    } catch {
      return null;
    }
  };

  #launch(
    spec: BashExecSpec,
    background: boolean,
  ): Promise<{ running: RunningCommand; plan: LaunchPlan }> {
    const launching = this.#spawn(spec, background);
    this.#launching.add(launching);
    return launching.finally(() => this.#launching.delete(launching));
  }

  async #spawn(
    spec: BashExecSpec,
    background: boolean,
  ): Promise<{ running: RunningCommand; plan: LaunchPlan }> {
    this.#checkCanSpawn(spec);
    const bash = this.#bash;
    if (bash === null) {
      throw new BashSpawnError(`No "bash" was found on PATH; install bash or fix PATH`);
    }
    let isDirectory = false;
    try {
      isDirectory = statSync(spec.workdir).isDirectory();
    } catch {
      // Reported below.
    }
    if (!isDirectory) {
      throw new BashSpawnError(
        `Workdir "${spec.workdir}" does not exist or is not a directory; pass an existing directory`,
      );
    }
    const env = commandEnv(this.#env, spec.env, spec.managedEnv);
    const plan = await this.planLaunch(spec, {
      program: bash,
      args: [...BASH_FLAGS, "-c", spec.command],
      cwd: spec.workdir,
      env,
    });
    this.#checkCanSpawn(spec);
    const { launch } = plan;
    const { config } = this;
    const setsid = config.setsidPath;
    const keepStdinOpen = background && spec.keepStdinOpen === true;
    let child;
    try {
      child = await runtime.spawn({
        program: setsid ?? launch.program,
        args: setsid === null ? launch.args : [launch.program, ...launch.args],
        cwd: launch.cwd,
        env: launch.env,
        stdin: spec.stdin !== undefined || keepStdinOpen ? "piped" : "null",
        session: config.sessionStrategy,
      });
    } catch (cause) {
      throw new BashSpawnError(
        `Could not start "${launch.program}" in "${launch.cwd}": ${
          messageOf(cause)
        }; check that the program and the directory exist`,
        { cause },
      );
    }
    const running = new RunningCommand({
      runtime,
      child,
      stdout: this.#collector(spec.stdoutMaxBytes),
      stderr: this.#collector(config.maxOutputBytes),
      killGraceMs: config.killGraceMs,
      drainGraceMs: config.drainGraceMs,
      stdin: typeof spec.stdin === "string" ? encoder.encode(spec.stdin) : spec.stdin,
      keepStdinOpen,
      ...clocks(spec, background),
    });
    this.#running.add(running);
    running.settled.then(() => this.#running.delete(running));
    return { running, plan };
  }

  #collector(maxBytes: number): OutputCollector {
    const { headBytes, maxSpillBytes } = this.config;
    return new OutputCollector({
      maxBytes,
      headBytes,
      maxSpillBytes,
      spillDir: this.#spillDir,
      spillBudget: this.#spillBudget,
    });
  }

  #checkCanSpawn(spec: BashExecSpec): void {
    checkSpec(spec);
    if (this.#disposed) {
      throw disposedError();
    }
    if (spec.signal?.aborted) {
      throw new BashSpawnError(
        "The signal was aborted before the command started, so nothing was run; pass a signal that is not aborted yet",
        { cause: spec.signal.reason },
      );
    }
  }
}

/** A JavaScript caller may hand run() or start() a plain request: say how to make a spec. */
function checkSpec(spec: BashExecSpec): void {
  const workdir: unknown = spec?.workdir;
  if (typeof workdir !== "string" || !isAbsolute(workdir) || spec.sandboxPolicy === undefined) {
    throw new BashConfigError(
      `run() and start() take a spec with an absolute "workdir" and a "sandboxPolicy"; got workdir ${
        JSON.stringify(workdir) ?? "undefined"
      }; pass executor.resolve(request) instead of the request`,
    );
  }
  fitsTimer("timeoutMs", positiveFinite("timeoutMs", spec.timeoutMs));
  wholeNumber("stdoutMaxBytes", spec.stdoutMaxBytes, 1);
  checkCallValues(spec);
}

function disposedError(): BashSpawnError {
  return new BashSpawnError("The executor was disposed; create a new executor to run commands");
}

/** The wall and idle clocks apply to foreground runs only; the abort signal to both. */
function clocks(
  spec: BashExecSpec,
  background: boolean,
): { timeoutMs?: number; idleTimeoutMs?: number; signal?: AbortSignal } {
  const clocks: { timeoutMs?: number; idleTimeoutMs?: number; signal?: AbortSignal } = {};
  if (!background) clocks.timeoutMs = spec.timeoutMs;
  if (!background && spec.idleTimeoutMs !== undefined) clocks.idleTimeoutMs = spec.idleTimeoutMs;
  if (spec.signal !== undefined) clocks.signal = spec.signal;
  return clocks;
}

function describe(
  plan: LaunchPlan,
  running: RunningCommand,
  stderrText: string,
): BashSandboxInfo | undefined {
  if (plan.describe === undefined) return undefined;
  const exit = running.exit ?? { code: null, signal: null };
  const outcome: LaunchOutcome = {
    exitCode: exit.code,
    signal: exit.signal,
    stderrText,
    killedByExecutor: running.cause !== null,
  };
  return plan.describe(outcome);
}
