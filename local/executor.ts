import {
  type BashExecRequest,
  type BashExecSpec,
  BashExecutor,
  type BashExecutorLimits,
  type BashProcess,
  type BashRunResult,
} from "../seam/mod.ts";
import {
  CommandEngine,
  executorLimits,
  HOST_SIGNALS,
  type HostSignal,
  type LocalBashExecutorConfig,
  type ResolvedLocalBashExecutorConfig,
} from "../engine/mod.ts";
import { unconfined } from "./_unconfined.ts";

/**
 * Runs bash commands on this machine: `bash -c <command>`, non-login, one
 * fresh shell per call, each in a new session and process group, with a
 * scrubbed environment, bounded output (head + tail in memory, the whole
 * stream in a spill file), wall and idle clocks, abort, and a sweep that
 * leaves no process of a command behind (except one that called setsid
 * itself: a documented gap that the sandbox's pid namespace closes). A
 * watchdog process per executor kills every command, and removes the
 * private folder, when this process dies, however it dies.
 *
 * It is the engine with a confiner that confines nothing (see
 * `engine/_confiner.ts`); `SandboxBashExecutor` is the same engine with the
 * sandbox's.
 *
 * @example Run a command, on Deno and Node 24 (`await using`)
 * ```ts
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor({ cwd: "/tmp" });
 * const result = await executor.run({ command: "echo hi; echo oops >&2; exit 3" });
 * assert.equal(result.stdout.text, "hi\n");
 * assert.equal(result.stderr.text, "oops\n");
 * assert.equal(result.exitCode, 3);
 * ```
 *
 * @example Start a background command and read its output, on Deno and Node 24 (`await using`)
 * ```ts
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor();
 * const process = await executor.start({ command: "cat", keepStdinOpen: true });
 * await process.write("ping\n");
 * await process.closeStdin();
 * await process.done;
 * assert.equal(process.readOutput().stdout.text, "ping\n");
 * assert.equal(process.status, "completed");
 * ```
 */
export class LocalBashExecutor extends BashExecutor {
  /** The validated config, defaults filled in. */
  readonly config: ResolvedLocalBashExecutorConfig;
  readonly #engine: CommandEngine;

  /** Validates the config (throws `BashConfigError` naming the field) and resolves bash once. */
  constructor(config: LocalBashExecutorConfig = {}) {
    super();
    this.#engine = new CommandEngine(config, unconfined, {
      sandboxMode: () => this.sandboxMode,
      dispose: () => this[Symbol.asyncDispose](),
    });
    this.config = this.#engine.config;
  }

  /**
   * Fills a request from the defaults: workdir resolved against `cwd`,
   * `timeoutMs` defaulted and capped at `maxTimeoutMs`, `stdoutMaxBytes`
   * defaulted to `maxOutputBytes`, `sandboxPolicy` null when absent. Throws
   * `BashConfigError` naming the field for a timeout that is not a positive
   * finite number (or that no timer can wait: over 2147483647 ms for
   * `idleTimeoutMs`), a `stdoutMaxBytes` over 256 MiB, env keys in the wrong
   * namespace, env values that are not strings, a NUL byte in the command,
   * the workdir or the env, a `signal` that is not an `AbortSignal`, a
   * `keepStdinOpen` that is not a boolean, an unknown key (a typo such as
   * `timeout`), an `onOutput` that is not a function, and a confined
   * `sandboxPolicy` (this executor does not sandbox; only
   * `danger-full-access` or none is accepted). The spec is frozen and marked,
   * so `run()` and `start()` take it without checking it again.
   *
   * @example On Deno and Node 24 (`await using`)
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
   *
   * @example A confined policy is refused, on Deno and Node 24 (`await using`)
   * ```ts
   * import { LocalBashExecutor } from "@shellseam/bash/local";
   * import { BashConfigError } from "@shellseam/bash/seam";
   * import assert from "node:assert/strict";
   *
   * await using executor = new LocalBashExecutor();
   * const confined = { mode: "read-only", workspaceRoot: "/tmp", network: "deny" } as const;
   * assert.throws(() => executor.resolve({ command: "ls", sandboxPolicy: confined }), BashConfigError);
   * ```
   */
  resolve(request: BashExecRequest): BashExecSpec {
    return this.markResolved(this.#engine.resolve(request));
  }

  /**
   * The time and output limits of this executor, from its config.
   *
   * @example On Deno and Node 24 (`await using`)
   * ```ts
   * import { LocalBashExecutor } from "@shellseam/bash/local";
   * import assert from "node:assert/strict";
   *
   * await using executor = new LocalBashExecutor({ timeoutMs: 5_000 });
   * assert.equal(executor.limits.defaultTimeoutMs, 5_000);
   * assert.equal(executor.limits.maxTimeoutMs, 600_000);
   * ```
   */
  get limits(): BashExecutorLimits {
    return executorLimits(this.config);
  }

  /**
   * Runs a command in the foreground: a request (resolved first) or a spec
   * from `resolve()`. Rejects with `BashConfigError` for a bad value, and with
   * `BashSpawnError` only when it cannot start (missing workdir, missing bash,
   * pre-aborted signal, disposed executor); a non-zero exit, a timeout or an
   * abort resolves. `onOutput` sees the output as it arrives.
   *
   * @example A timeout resolves, on Deno and Node 24 (`await using`)
   * ```ts
   * import { LocalBashExecutor } from "@shellseam/bash/local";
   * import assert from "node:assert/strict";
   *
   * await using executor = new LocalBashExecutor();
   * const result = await executor.run({ command: "sleep 5", timeoutMs: 100 });
   * assert.equal(result.timedOut, true);
   * assert.equal(result.signal, "SIGTERM");
   * ```
   *
   * @example Follow the output as it arrives, as text and as bytes, on Deno and Node 24 (`await using`)
   * ```ts
   * import { LocalBashExecutor } from "@shellseam/bash/local";
   * import assert from "node:assert/strict";
   *
   * await using executor = new LocalBashExecutor();
   * const seen: string[] = [];
   * const bytes: number[] = [];
   * const result = await executor.run({
   *   command: "echo one; sleep 0.1; printf 'two\\377'",
   *   onOutput: (chunk) => {
   *     seen.push(chunk.text);
   *     bytes.push(...chunk.bytes);
   *   },
   * });
   * // The text replaces the byte that is not UTF-8; the bytes are as written.
   * assert.equal(seen.join(""), "one\ntwo\ufffd");
   * assert.deepEqual(bytes, [...new TextEncoder().encode("one\ntwo"), 0xff]);
   * assert.equal(result.stdout.text, "one\ntwo\ufffd");
   * ```
   */
  async run(request: BashExecRequest): Promise<BashRunResult> {
    return await this.#engine.run(this.specOf(request), undefined);
  }

  /**
   * Starts a command in the background and resolves once it is spawned; no
   * timeout applies (aborting `signal` kills it). Takes a request or a spec
   * like {@linkcode run}, and rejects like it when it cannot start; refuses
   * `onOutput` (read `process.output()` instead).
   *
   * @example Kill a background command, on Deno and Node 24 (`await using`)
   * ```ts
   * import { LocalBashExecutor } from "@shellseam/bash/local";
   * import assert from "node:assert/strict";
   *
   * await using executor = new LocalBashExecutor();
   * const process = await executor.start({ command: "sleep 30" });
   * assert.equal(process.status, "running");
   * assert.equal(await process.kill(), true);
   * assert.equal(await process.kill(), false);
   * assert.equal(process.status, "killed");
   * ```
   */
  async start(request: BashExecRequest): Promise<BashProcess> {
    return await this.#engine.start(this.specOf(request));
  }

  /**
   * The executor's private 0700 directory (created before the first command
   * or on first use; it also holds the spill files). Removed at disposal unless `keepSpillFiles`;
   * rejects with `BashSpawnError` once the executor is disposed.
   *
   * @example On Deno and Node 24 (`await using`)
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
  protected async privateDir(): Promise<string> {
    return await this.#engine.privateDir();
  }

  /**
   * Makes this process, on SIGTERM, SIGINT or SIGHUP (or the `signals`
   * given), dispose this executor (and every other executor that asked),
   * then exit with the conventional code, 128 + the signal's number (143,
   * 130, 129). Without it, shellseam installs no signal listener: a host
   * killed by a signal still loses no command to the void (the watchdog kills
   * them), but only disposal awaits their exit. Returns what removes the
   * listeners again; disposal removes them too.
   *
   * @example On Deno and Node 24 (`await using` and `using`)
   * ```ts
   * import { LocalBashExecutor } from "@shellseam/bash/local";
   * import assert from "node:assert/strict";
   * import process from "node:process";
   *
   * await using executor = new LocalBashExecutor();
   * const before = process.listenerCount("SIGTERM");
   * using _hook = executor.killOnSignals();
   * assert.equal(process.listenerCount("SIGTERM"), before + 1);
   * ```
   */
  killOnSignals(signals: readonly HostSignal[] = HOST_SIGNALS): Disposable {
    return this.#engine.killOnSignals(signals);
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
   * const process = await executor.start({ command: "sleep 30" });
   * await executor[Symbol.asyncDispose]();
   * assert.equal(process.status, "killed");
   * await assert.rejects(executor.run({ command: "true" }), BashSpawnError);
   * ```
   */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.#engine.dispose();
  }
}
