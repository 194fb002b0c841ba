import { mkdirSync, rmSync } from "node:fs";
import {
  BashConfigError,
  type BashExecRequest,
  type BashExecSpec,
  BashExecutor,
  type BashExecutorLimits,
  type BashProcess,
  type BashRunResult,
  type ResourceLimitHit,
  type ResourceLimits,
  type SandboxPolicy,
  type StrayReport,
} from "../seam/mod.ts";
import { RunningCommand } from "./_command.ts";
import {
  type LocalBashExecutorConfig,
  resolveConfig,
  type ResolvedLocalBashExecutorConfig,
} from "./_config.ts";
import { type BaseEnv, baseEnv, commandEnv } from "./_env.ts";
import { bashArgs, spawnFailure } from "./_exec.ts";
import { joined, OutputCollector } from "./_output.ts";
import { appliedLimits, hasLimits, limitedLaunch, mergeLimits, rlimitsOf } from "./_limits.ts";
import {
  cgroupLimits,
  type CgroupSupport,
  cgroupSupportFor,
  type CommandCgroup,
  ExecutorCgroups,
} from "./_cgroup.ts";
import { checkBackground, executorLimits, fillRequest } from "./_request.ts";
import { SpillBudget } from "./_spill_budget.ts";
import { findOnPath } from "./_session.ts";
import { throwIfDenied } from "./_permissions.ts";
import { ProcessControl } from "./_control.ts";
import { Watchdog, WATCHDOG_VARIABLE } from "./_watchdog.ts";
import { HOST_SIGNALS, type HostSignal, SignalHooks } from "./_signals.ts";
import type { Launch, LaunchLimits, LaunchPlan } from "./launch.ts";
import { localStandbyHost, type Standby, Standbys } from "./_standby.ts";
import type { SpawnedChild } from "../runtime/mod.ts";
import { isOwnDirectory, makePrivateDir, privateParentPath } from "./_private_dir.ts";
import { checkBash, checkCanSpawn, checkWorkdir, disposedError } from "./_spawn_checks.ts";
import { clocks, type Launched } from "./_launched.ts";
import { finishRun } from "./_run_result.ts";
import { awaitStart } from "./_start.ts";
import { backgroundProcess } from "./_background.ts";

const encoder = new TextEncoder();

/** The launches a call may take when one ends before its command starts (see `LaunchPlan.announcesStart`). */
const MAX_LAUNCHES = 3;

/**
 * The launch of a cold start: `plan`'s, behind a short bash that applies
 * what it does not apply itself (all limits, or only the cgroups of
 * `unjoined`, left out of the plan for a standby that was not used).
 */
function limitedPlan(
  plan: LaunchPlan,
  rlimits: ResourceLimits,
  cgroup: CommandCgroup | null,
  unjoined: readonly string[],
  bash: string,
): Launch {
  const applied = plan.limitsApplied === true;
  const sets = applied ? {} : rlimits;
  const joins = applied ? unjoined : cgroup?.procsFiles ?? [];
  return hasLimits(sets) || joins.length > 0
    ? limitedLaunch(plan.launch, sets, joins, bash)
    : plan.launch;
}

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
 * Subclasses (the sandbox) rewrite what is spawned in {@linkcode planLaunch}.
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
  readonly #bash: string | null;
  readonly #env: BaseEnv;
  readonly #running = new Set<RunningCommand>();
  readonly #launching = new Set<Promise<unknown>>();
  readonly #spillBudget: SpillBudget;
  readonly #watchdog: Watchdog | null;
  readonly #control: ProcessControl;
  readonly #signalHooks = new SignalHooks(() => this[Symbol.asyncDispose]());
  #disposed = false;
  readonly #standbys: Standbys = new Standbys(localStandbyHost({
    config: () => this.config,
    watchdog: () => this.#watchdog,
    control: () => this.#control,
    disposed: () => this.#disposed,
  }));
  #dir: string | null = null;
  /** Commands started so far, which numbers each command's marker. */
  #commands = 0;
  #cgroups: ExecutorCgroups | null = null;

  /** Validates the config (throws `BashConfigError` naming the field) and resolves bash once. */
  constructor(config: LocalBashExecutorConfig = {}) {
    super();
    try {
      this.config = resolveConfig(config);
      this.#bash = findOnPath("bash");
      this.#env = baseEnv();
      this.#watchdog = this.#bash === null ? null : new Watchdog({
        runtime: this.config.runtime,
        bash: this.#bash,
        setsidPath: this.config.setsidPath,
        session: this.config.sessionStrategy,
        tempRoot: privateParentPath(this.config.spillDir),
      });
    } catch (error) {
      // PATH, the environment commands inherit, TMPDIR: read here, and refusable.
      throwIfDenied(error, "read the environment and find bash");
      throw error;
    }
    this.#control = new ProcessControl(this.config.runtime, this.#watchdog);
    this.#spillBudget = new SpillBudget(this.config.maxSpillTotalBytes, () => this.#dir);
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
   */
  resolve(request: BashExecRequest): BashExecSpec {
    return this.markResolved(
      fillRequest(request, this.config, (policy) => this.resolvePolicy(policy)),
    );
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
   * The policy a spec carries for a request's `sandboxPolicy` (absent or
   * `null` alike). This executor does not sandbox: it keeps `null` or a
   * `danger-full-access` policy and refuses a confined one (running it would
   * be a silently unconfined run). A sandboxing subclass stamps its default
   * and checks the policy.
   *
   * @example On Deno and Node 24 (`await using`)
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
  protected resolvePolicy(policy: SandboxPolicy | null | undefined): SandboxPolicy | null {
    if (policy === undefined || policy === null) return null;
    const mode = typeof policy === "object" ? (policy as { mode?: unknown }).mode : undefined;
    if (mode === "danger-full-access") return policy;
    throw new BashConfigError(
      `This executor does not sandbox, so a "sandboxPolicy" with mode ${
        JSON.stringify(mode) ?? "undefined"
      } would run unconfined; use a SandboxBashExecutor, or pass no policy (or "danger-full-access") to run unconfined`,
    );
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
    return await this.#run(this.specOf(request), undefined);
  }

  /**
   * Runs a request in the foreground with its launch made by `wrap` from the
   * bare bash launch, instead of by {@linkcode planLaunch} and without the
   * default resource limits: the direct path of a subclass's own checks (the
   * sandbox probes a backend with it). Otherwise as {@linkcode run}.
   *
   * @example On Deno and Node 24 (`await using`)
   * ```ts
   * import { type Launch, LocalBashExecutor } from "@shellseam/bash/local";
   * import type { BashRunResult } from "@shellseam/bash/seam";
   * import assert from "node:assert/strict";
   *
   * class Checked extends LocalBashExecutor {
   *   check(): Promise<BashRunResult> {
   *     return this.runWrapped({ command: "true" }, (launch: Launch) => ({
   *       ...launch,
   *       args: [...launch.args.slice(0, -1), "echo checked"],
   *     }));
   *   }
   * }
   * await using executor = new Checked();
   * assert.equal((await executor.check()).stdout.text, "checked\n");
   * ```
   */
  protected async runWrapped(
    request: BashExecRequest,
    wrap: (launch: Launch) => Launch,
  ): Promise<BashRunResult> {
    return await this.#run(this.specOf(request), wrap);
  }

  async #run(
    spec: BashExecSpec,
    wrap: ((launch: Launch) => Launch) | undefined,
  ): Promise<BashRunResult> {
    return await finishRun(spec, await this.#launch(spec, false, wrap), this.#env.scrubbed);
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
    const spec = this.specOf(request);
    checkBackground(spec);
    return backgroundProcess(spec, await this.#launch(spec, true, undefined));
  }

  /**
   * The hook a subclass uses to change what is spawned (a sandbox wraps the
   * launch). Called by `run()` and `start()` after validation and before
   * spawning, with `{ program: <absolute bash>, args: ["--norc", "--noprofile", "-c", command], cwd, env }`
   * (a command of 128 KiB or more, over the kernel's limit for one argument,
   * comes instead as a short `-c` script that joins and evals the pieces that
   * follow it: `[..., "-c", script, <bash>, piece1, piece2, ...]`).
   * The session strategy is applied to the returned launch. `limits` are the
   * call's resource limits, still to apply: a plan that applies them itself
   * (a sandbox's wrapper joins the cgroups and sets the rlimits before it
   * starts the sandbox) says so with `limitsApplied: true`; otherwise the
   * executor puts a short bash in front of the returned launch that does.
   * Rejecting makes the call reject with that error, and nothing is spawned.
   *
   * @example Prefix every command, on Deno and Node 24 (`await using`)
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
   * const result = await executor.run({ command: "echo hi" });
   * assert.equal(result.stdout.text, "traced\nhi\n");
   * assert.equal(result.sandbox?.backend, "none");
   * ```
   */
  protected planLaunch(
    _spec: BashExecSpec,
    launch: Launch,
    _limits?: LaunchLimits,
  ): Promise<LaunchPlan> {
    return Promise.resolve({ launch });
  }

  /**
   * The resource limits a call gets before its own `limits` go over them:
   * the config's `limits`. A subclass may add defaults (the sandbox limits
   * confined calls).
   *
   * @example On Deno and Node 24 (`await using`)
   * ```ts
   * import { LocalBashExecutor } from "@shellseam/bash/local";
   * import type { BashExecSpec, ResourceLimits } from "@shellseam/bash/seam";
   * import assert from "node:assert/strict";
   *
   * class Careful extends LocalBashExecutor {
   *   protected override defaultLimits(_spec: BashExecSpec): ResourceLimits {
   *     return { cpuSeconds: 1 };
   *   }
   * }
   * await using executor = new Careful();
   * const result = await executor.run({ command: "while :; do :; done" });
   * assert.equal(result.limitHit?.limit, "cpu");
   * assert.equal(result.signal, "SIGXCPU");
   * ```
   */
  protected defaultLimits(_spec: BashExecSpec): ResourceLimits {
    return this.config.limits;
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
    if (this.#disposed) throw disposedError();
    // Started first, so the folder's name can carry its owner (see #privateDir).
    await this.#watchdog?.ready();
    if (this.#disposed) throw disposedError();
    return this.#privateDir();
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
    return this.#signalHooks.add(signals);
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
    this.#disposed = true;
    const standbys = this.#standbys.dispose();
    this.#signalHooks.clear();
    await Promise.allSettled(this.#launching);
    for (const running of this.#running) running.kill("dispose");
    await Promise.all([...this.#running].map((running) => running.settled));
    await standbys;
    await this.#cgroups?.dispose();
    if (this.#dir !== null && !this.config.keepSpillFiles) {
      rmSync(this.#dir, { recursive: true, force: true });
      this.#dir = null;
    }
    await this.#watchdog?.close();
  }

  /**
   * The private directory, made again when a command removed it: under its
   * old name when that is free, else under a new one (another user may have
   * taken the name in the shared temporary folder meanwhile). Named
   * `shellseam-exec-<pid>-<start>-XXXXXX` after the host's pid and start time (as
   * the watchdog read them), so that a later executor's watchdog removes it
   * once this process is gone; a kept folder carries no owner.
   */
  #privateDir(): string {
    const dir = this.#dir;
    if (dir !== null) {
      if (isOwnDirectory(dir)) return dir;
      try {
        mkdirSync(dir, { mode: 0o700 });
        return dir;
      } catch {
        // The name is taken or unusable: a fresh one below.
      }
    }
    const owner = this.config.keepSpillFiles ? null : this.#watchdog?.owner ?? null;
    this.#dir = makePrivateDir(this.config.spillDir, owner);
    // A kept directory outlives the executor, so no one may remove it as a dead host's.
    if (!this.config.keepSpillFiles) this.#watchdog?.guard(this.#dir);
    return this.#dir;
  }

  #spillDir = (): string => this.#privateDir();

  #launch(
    spec: BashExecSpec,
    background: boolean,
    wrap: ((launch: Launch) => Launch) | undefined,
  ): Promise<Launched> {
    const launching = this.#spawn(spec, background, wrap);
    this.#launching.add(launching);
    return launching.finally(() => this.#launching.delete(launching));
  }

  async #spawn(
    spec: BashExecSpec,
    background: boolean,
    wrap: ((launch: Launch) => Launch) | undefined,
  ): Promise<Launched> {
    this.#checkCanSpawn(spec);
    const bash = this.#bash;
    checkBash(bash);
    checkWorkdir(spec.workdir);
    const env = commandEnv(this.#env, spec.env, spec.managedEnv);
    // Last, so no caller displaces it: a kill finds the command's processes in
    // other sessions by it, and on the host's death the watchdog kills what carries it.
    const number = ++this.#commands;
    const marker = `${this.#watchdog?.token ?? "none"}.${number}`;
    env[WATCHDOG_VARIABLE] = marker;
    const limits = wrap === undefined ? mergeLimits(this.defaultLimits(spec), spec.limits) : {};
    const support = cgroupSupportFor(this.config.useCgroups, limits);
    const held = cgroupLimits(limits, support);
    const bashLaunch: Launch = {
      program: bash,
      args: bashArgs(bash, spec.command),
      cwd: spec.workdir,
      env,
    };
    const { config } = this;
    const setsid = config.setsidPath;
    const keepStdinOpen = background && spec.keepStdinOpen === true;
    const watchdog = this.#watchdog;
    const cgroupKey = held.join(",");
    let cgroup: CommandCgroup | null = null;
    let standby: Standby | undefined;
    if (held.length > 0) {
      // Named after the watchdog's owner, which it tells when it starts.
      await watchdog?.ready();
      this.#checkCanSpawn(spec);
      const stdinNull = spec.stdin === undefined && !keepStdinOpen;
      standby = stdinNull && wrap === undefined ? this.#standbys.take(cgroupKey) : undefined;
      try {
        standby?.cgroup.setLimits(limits);
      } catch {
        this.#standbys.discard(standby as Standby);
        standby = undefined;
      }
      cgroup = standby?.cgroup ?? await this.#commandCgroup(limits, support);
    }
    const rlimits = rlimitsOf(limits, held);
    let launch: Launch;
    let plan: LaunchPlan;
    try {
      // A standby joined the cgroups already: the plan does not.
      plan = wrap !== undefined ? { launch: wrap(bashLaunch) } : await this.planLaunch(
        spec,
        bashLaunch,
        { rlimits, cgroupProcs: standby === undefined ? cgroup?.procsFiles ?? [] : [] },
      );
      let unjoined: readonly string[] = [];
      if (standby !== undefined && plan.standby?.key !== standby.launchKey) {
        // Not a launch it can run: it waits for the next one.
        this.#standbys.putBack(standby);
        standby = undefined;
        cgroup = await this.#commandCgroup(limits, support);
        unjoined = cgroup.procsFiles;
      }
      launch = limitedPlan(plan, rlimits, cgroup, unjoined, bash);
      this.#checkCanSpawn(spec);
      await watchdog?.ready();
      this.#checkCanSpawn(spec);
      this.#checkPrivateDir();
    } catch (error) {
      if (standby !== undefined) this.#standbys.discard(standby);
      else await cgroup?.close();
      throw error;
    }
    const hits: { hit?: ResourceLimitHit } = {};
    let child: SpawnedChild | undefined;
    let forksAtSpawn: number | null | undefined;
    if (standby !== undefined && plan.standby !== undefined) {
      child = await this.#standbys.hand(standby, plan.standby.input(rlimits));
      forksAtSpawn = standby.forksAtSpawn;
      if (child === undefined) {
        // It could not take the launch, which did not run: started as usual.
        forksAtSpawn = undefined;
        this.#checkCanSpawn(spec);
        cgroup = await this.#commandCgroup(limits, support);
        launch = limitedPlan(plan, rlimits, cgroup, cgroup.procsFiles, bash);
      }
    }
    // Whether the launch's own input went to its stdin already (see awaitStart).
    let inputWritten = false;
    for (let launches = 1; child === undefined; launches++) {
      let spawned: SpawnedChild;
      try {
        spawned = await config.runtime.spawn({
          program: setsid ?? launch.program,
          args: setsid === null ? launch.args : [launch.program, ...launch.args],
          cwd: launch.cwd,
          env: launch.env,
          stdin: spec.stdin !== undefined || keepStdinOpen || launch.input !== undefined
            ? "piped"
            : "null",
          session: config.sessionStrategy,
        });
      } catch (cause) {
        await cgroup?.close();
        throw spawnFailure(cause, launch);
      }
      watchdog?.watch(spawned.pid);
      const announced = plan.announcesStart;
      if (announced === undefined) {
        child = spawned;
        break;
      }
      const start = await awaitStart(spawned, launch.input, spec.signal);
      inputWritten = true;
      if (start.state !== "ended" || launches >= MAX_LAUNCHES || !announced.retry(start.stderr)) {
        child = start.child;
        break;
      }
      // The command never ran: the plan is settled unused, and the call planned again.
      const status = await spawned.exited;
      watchdog?.release(spawned.pid);
      plan.namespaceStrays?.();
      plan.describe?.({
        exitCode: status.code,
        signal: status.signal,
        stderrText: start.stderr,
        killedByExecutor: false,
      });
      try {
        this.#checkCanSpawn(spec);
        plan = await this.planLaunch(spec, bashLaunch, {
          rlimits,
          cgroupProcs: cgroup?.procsFiles ?? [],
        });
        launch = limitedPlan(plan, rlimits, cgroup, [], bash);
      } catch (error) {
        await cgroup?.close();
        throw error;
      }
    }
    const stdin = typeof spec.stdin === "string" ? encoder.encode(spec.stdin) : spec.stdin;
    const running: RunningCommand = new RunningCommand({
      control: this.#control,
      ...(plan.pidNamespace === true ? {} : { marker }),
      ...(forksAtSpawn === undefined ? {} : { forksAtSpawn }),
      child,
      stdout: this.#collector(spec.stdoutMaxBytes),
      stderr: this.#collector(config.maxOutputBytes),
      killGraceMs: config.killGraceMs,
      drainGraceMs: config.drainGraceMs,
      // What the launch reads first (its own input), then the command's stdin.
      stdin: launch.input === undefined || inputWritten
        ? stdin
        : joined(launch.input, stdin ?? null),
      keepStdinOpen,
      ...clocks(spec, background),
      ...(spec.onOutput === undefined ? {} : { onOutput: spec.onOutput }),
      ...(cgroup === null && plan.namespaceStrays === undefined ? {} : {
        afterSweep: async (swept): Promise<StrayReport> => {
          let strays: StrayReport = { killed: 0, survivors: [] };
          const namespaceStrays = plan.namespaceStrays;
          let ended: number | undefined;
          try {
            if (cgroup !== null) {
              const { hit, ...left } = await cgroup.close(swept);
              if (hit !== undefined) hits.hit = hit;
              strays = left;
            }
          } finally {
            // Read (and so removed) even when closing the cgroup failed.
            ended = namespaceStrays?.();
          }
          if (namespaceStrays === undefined) return strays;
          if (ended !== undefined) return { ...strays, killed: strays.killed + ended };
          // Killed by the executor, the namespace went with its kill; otherwise no count is no news.
          return running.cause !== null || strays.censusFailed !== undefined ? strays : {
            ...strays,
            censusFailed:
              "the sandbox's pid namespace ended without saying how many processes it ended",
          };
        },
      }),
    });
    this.#running.add(running);
    running.settled.then(() => {
      this.#running.delete(running);
      watchdog?.release(child.pid);
      const ahead = plan.standby;
      if (ahead !== undefined && held.length > 0) {
        // After the caller has its result: the standby is for the next command.
        setTimeout(() =>
          this.#standbys.prepare(
            cgroupKey,
            ahead.key,
            () => this.#commandCgroup(limits, support),
            (procs) => ahead.prepare(procs),
          ), 0);
      }
    });
    const confined = this.sandboxMode !== undefined &&
      (spec.sandboxPolicy?.mode ?? this.sandboxMode) !== "danger-full-access";
    return {
      running,
      plan,
      limits,
      applied: appliedLimits(limits, confined, support),
      cgroup: cgroup === null ? null : hits,
    };
  }

  /** Command n's cgroup with `limits`, in this executor's folder (made on first use). */
  #commandCgroup(
    limits: ResourceLimits,
    support: CgroupSupport,
  ): Promise<CommandCgroup> {
    const owner = this.#watchdog?.owner ?? null;
    this.#cgroups ??= new ExecutorCgroups(
      support,
      // Without an owner, no later executor may take the folder for a dead host's.
      `${owner === null ? "shellseam-unowned-" : `shellseam-exec-${owner}-`}${
        this.#watchdog?.token ?? crypto.randomUUID()
      }`,
      (pid) => {
        try {
          this.config.runtime.kill(pid, "SIGKILL");
        } catch {
          // Counted as a survivor when it stays in the cgroup.
        }
      },
    );
    return this.#cgroups.create(
      limits,
      (folder) => this.#watchdog?.guardCgroups(folder),
    );
  }

  /**
   * Makes the private folder before the first command, so that a refused
   * permission is an error now and not a spill that silently never happens.
   */
  #checkPrivateDir(): void {
    if (this.#dir !== null) return;
    try {
      this.#privateDir();
    } catch (error) {
      throwIfDenied(error, "make the private folder for spill files");
      // Any other failure leaves the command without spill files, as when it overflows.
    }
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
    checkCanSpawn(this.#disposed, spec);
  }
}
