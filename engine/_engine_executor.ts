import {
  type BashExecRequest,
  type BashExecSpec,
  BashExecutor,
  type BashExecutorLimits,
  type BashProcess,
  type BashRunResult,
  BashSpawnError,
} from "../seam/mod.ts";
import { CommandEngine } from "./_command_engine.ts";
import type { MakeConfiner } from "./_confiner.ts";
import type { LocalBashExecutorConfig, ResolvedLocalBashExecutorConfig } from "./_config.ts";
import { executorLimits } from "./_request.ts";
import { HOST_SIGNALS, type HostSignal } from "./_signals.ts";

/**
 * The engine of each executor built on it. A map, not a constructor
 * parameter, so the engine and its confiner stay out of the public types.
 */
const engines = new WeakMap<EngineBashExecutor, CommandEngine>();

/**
 * Builds the engine of `executor` (from its subclass's constructor, right
 * after `super()`): `config` for the engine, `confiner` for what each call
 * is confined by. Throws `BashConfigError` for a bad config.
 */
export function buildEngine(
  executor: EngineBashExecutor,
  config: LocalBashExecutorConfig,
  confiner: MakeConfiner,
): CommandEngine {
  const engine = new CommandEngine(config, confiner, {
    sandboxMode: () => executor.sandboxMode,
    dispose: () => executor[Symbol.asyncDispose](),
  });
  engines.set(executor, engine);
  return engine;
}

/** The engine `buildEngine` gave `executor`. */
function engineOf(executor: EngineBashExecutor): CommandEngine {
  const engine = engines.get(executor);
  if (engine === undefined) {
    throw new BashSpawnError(
      "This executor has no command engine; extend LocalBashExecutor or SandboxBashExecutor, or BashExecutor for an engine of your own",
    );
  }
  return engine;
}

/**
 * What `LocalBashExecutor` and `SandboxBashExecutor` share: the command
 * engine on this host, which runs each call as its executor's confiner plans
 * it (the local one confines nothing). The methods here are theirs; build
 * one of those, not this.
 *
 * @example The two executors share these methods, on Deno and Node 24 (`await using`)
 * ```ts
 * import { EngineBashExecutor, LocalBashExecutor } from "@shellseam/bash/local";
 * import { SandboxBashExecutor } from "@shellseam/bash/sandbox";
 * import { tmpdir } from "node:os";
 * import assert from "node:assert/strict";
 *
 * await using local = new LocalBashExecutor();
 * await using sandbox = new SandboxBashExecutor({ workspaceRoot: tmpdir() });
 * assert.ok(local instanceof EngineBashExecutor);
 * assert.ok(sandbox instanceof EngineBashExecutor);
 * ```
 */
export abstract class EngineBashExecutor extends BashExecutor {
  /**
   * The validated config, defaults filled in.
   *
   * @example On Deno and Node 24 (`await using`)
   * ```ts
   * import { LocalBashExecutor } from "@shellseam/bash/local";
   * import assert from "node:assert/strict";
   *
   * await using executor = new LocalBashExecutor({ killGraceMs: 500 });
   * assert.equal(executor.config.killGraceMs, 500);
   * ```
   */
  get config(): ResolvedLocalBashExecutorConfig {
    return engineOf(this).config;
  }

  /**
   * Fills a request from the defaults: workdir resolved against `cwd`,
   * `timeoutMs` defaulted and capped at `maxTimeoutMs`, `stdoutMaxBytes`
   * defaulted to `maxOutputBytes`, the policy the executor's confiner gives
   * it. Throws `BashConfigError` naming the field for a timeout that is not
   * a positive finite number (or that no timer can wait: over 2147483647 ms
   * for `idleTimeoutMs`), a `stdoutMaxBytes` over 256 MiB, env keys in the
   * wrong namespace, env values that are not strings, a NUL byte in the
   * command, the workdir or the env, a `signal` that is not an
   * `AbortSignal`, a `keepStdinOpen` that is not a boolean, an unknown key
   * (a typo such as `timeout`), an `onOutput` that is not a function, and a
   * policy the executor cannot keep. The spec is frozen and marked, so
   * `run()` and `start()` take it without checking it again.
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
   */
  resolve(request: BashExecRequest): BashExecSpec {
    return this.markResolved(engineOf(this).resolve(request));
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
   * from `resolve()`, confined as the executor's confiner plans it. Rejects
   * with `BashConfigError` for a bad value, and with `BashSpawnError` only
   * when it cannot start (missing workdir, missing bash, pre-aborted signal,
   * disposed executor); a non-zero exit, a timeout or an abort resolves.
   * `onOutput` sees the output as it arrives.
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
    return await engineOf(this).run(this.specOf(request), undefined);
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
    return await engineOf(this).start(this.specOf(request));
  }

  /**
   * The executor's private 0700 directory (created before the first command
   * or on first use): the spill files live there, and a sandbox's backend
   * folders and proxy sockets. Removed at disposal unless `keepSpillFiles`;
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
    return await engineOf(this).privateDir();
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
    return engineOf(this).killOnSignals(signals);
  }

  /**
   * Kills every running command, foreground and background (SIGTERM, then
   * SIGKILL after `killGraceMs`), awaits every exit, stops what the
   * executor's confiner started (a sandbox's network proxy), and removes the
   * private directory unless `keepSpillFiles`. `run()` and `start()` reject
   * afterwards.
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
    await engineOf(this).dispose();
  }
}
