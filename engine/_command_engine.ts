/**
 * The engine of an executor that runs commands on this host: what
 * `LocalBashExecutor` (and the sandbox on it) holds once per executor. It
 * spawns each call's launch in a session of its own, applies the call's
 * resource limits (cgroups, rlimits), runs the command's lifecycle
 * (clocks, output and spill, the sweep of strays), and keeps what the
 * executor holds on this host: the watchdog, the private folder, the spill
 * budget and the cgroups. The bookkeeping every executor shares (the
 * commands running and launching, the signal hooks, disposal) is its
 * {@linkcode ExecutorLifecycle}'s.
 *
 * What a call's launch becomes (the sandbox wraps it), the policy it
 * carries and the limits it gets by default are its
 * {@linkcode Confiner}'s to decide: the executor hands the engine one, made
 * over the engine's {@linkcode ConfinerHost}.
 *
 * @module
 */
import { mkdirSync, rmSync } from "node:fs";
import {
  type BashExecRequest,
  type BashExecSpec,
  type BashProcess,
  type BashRunResult,
  BashSpawnError,
  type ResourceLimitHit,
  type ResourceLimits,
  type SandboxMode,
  type StrayReport,
} from "../seam/mod.ts";
import { platformOf, type SpawnedChild } from "../runtime/mod.ts";
import { RunningCommand } from "./_command.ts";
import {
  type LocalBashExecutorConfig,
  resolveConfig,
  type ResolvedLocalBashExecutorConfig,
} from "./_config.ts";
import { type BaseEnv, baseEnv, commandEnv } from "./_env.ts";
import { bashArgs, launchFailure, spawnFailure } from "./_exec.ts";
import { joined, OutputCollector } from "./_output.ts";
import { appliedLimits, limitedPlan, mergeLimits, platformGaps, rlimitsOf } from "./_limits.ts";
import { type CommandCgroup, ExecutorCgroups } from "./_cgroup.ts";
import { cgroupLimits, type CgroupSupport, cgroupSupportFor } from "./_cgroup_support.ts";
import { checkBackground, checkForeground, fillRequest } from "./_request.ts";
import {
  type Confiner,
  type ConfinerHost,
  type MakeConfiner,
  type WithConfinerWrap,
  WRAP_CONFINER,
} from "./_confiner.ts";
import { SpillBudget } from "./_spill_budget.ts";
import { findOnPath, inOwnSession } from "./_session.ts";
import { throwIfDenied } from "./_permissions.ts";
import { ProcessControl } from "./_control.ts";
import { Watchdog, WATCHDOG_VARIABLE } from "./_watchdog.ts";
import type { HostSignal } from "./_signals.ts";
import type { CgroupSlot, Launch, LaunchLimits, LaunchPlan, StartedAhead } from "./_launch.ts";
import { type AheadParts, endAhead, startAhead } from "./_ahead.ts";
import { isOwnDirectory, makePrivateDir, privateDirIn, privateParentPath } from "./_private_dir.ts";
import { checkBash, checkWorkdir } from "./_spawn_checks.ts";
import { ExecutorLifecycle } from "./_lifecycle.ts";
import { clocks } from "./_clocks.ts";
import type { Launched } from "./_launched.ts";
import { confines } from "./_confined.ts";
import { finishRun } from "./_run_result.ts";
import { awaitStart } from "./_start.ts";
import { backgroundProcess } from "./_background.ts";
import { findScript, localTerminal, terminalCommand, type TerminalScript } from "./_terminal.ts";

const encoder = new TextEncoder();

/** The launches a call may take when one ends before its command starts (see `LaunchPlan.announcesStart`). */
const MAX_LAUNCHES = 3;

/** What the engine asks of the executor it runs for. */
export interface EngineHooks {
  /** The executor's default sandbox mode; `undefined` when it does not sandbox. */
  sandboxMode(): SandboxMode | undefined;
  /** Disposes the executor (a host signal does, see {@linkcode CommandEngine.killOnSignals}). */
  dispose(): Promise<void>;
}

/**
 * One executor's engine: the validated config, bash resolved once, the
 * watchdog, and every command running or launching, until
 * {@linkcode CommandEngine.dispose}.
 */
export class CommandEngine {
  /** The validated config, defaults filled in. */
  readonly config: ResolvedLocalBashExecutorConfig;
  readonly #hooks: EngineHooks;
  readonly #confiner: Confiner;
  readonly #bash: string | null;
  /** The terminal calls' `script`, found on PATH at the first (see findScript). */
  #script: TerminalScript | undefined;
  readonly #env: BaseEnv;
  readonly #spillBudget: SpillBudget;
  readonly #watchdog: Watchdog | null;
  readonly #control: ProcessControl;
  readonly #lifecycle: ExecutorLifecycle;
  /** What the processes a confiner starts ahead get of the engine (see ConfinerHost.startAhead). */
  readonly #ahead: AheadParts = {
    config: () => this.config,
    watchdog: () => this.#watchdog,
    control: () => this.#control,
    disposed: () => this.#lifecycle.disposed,
    vet: (programs) => this.#vet("The process ahead of a later call was not started", programs),
  };
  #dir: string | null = null;
  /** Commands started so far, which numbers each command's marker. */
  #commands = 0;
  #cgroups: ExecutorCgroups | null = null;
  /** Whether a command's strays have said this platform's gaps (see #onceGaps). */
  #toldGaps = false;

  /**
   * Validates the config (throws `BashConfigError` naming the field),
   * resolves bash once, and makes the executor's confiner by `confiner`.
   */
  constructor(config: LocalBashExecutorConfig, confiner: MakeConfiner, hooks: EngineHooks) {
    this.#hooks = hooks;
    this.#lifecycle = new ExecutorLifecycle(() => hooks.dispose());
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
        platform: platformOf(this.config.runtime),
        toolPath: this.config.toolPath,
        vet: (programs) =>
          this.#vet(
            "The watchdog that kills commands when this process dies was not started, so no " +
              "command runs",
            programs,
          ),
      });
    } catch (error) {
      // PATH, the environment commands inherit, TMPDIR: read here, and refusable.
      throwIfDenied(error, "read the environment and find bash");
      throw error;
    }
    this.#control = new ProcessControl(this.config.runtime, this.#watchdog);
    this.#spillBudget = new SpillBudget(this.config.maxSpillTotalBytes, () => this.#dir);
    const made = confiner(this.#host());
    const wrap = (config as WithConfinerWrap)[WRAP_CONFINER];
    this.#confiner = wrap === undefined ? made : wrap(made);
  }

  /**
   * Fills a request from the config's defaults, its policy by the
   * confiner's rule (see `LocalBashExecutor.resolve`); the executor marks it.
   */
  resolve(request: BashExecRequest): BashExecSpec {
    return fillRequest(request, this.config, (policy) => this.#confiner.resolvePolicy(policy));
  }

  /**
   * Runs `spec` in the foreground and resolves with its result. Its launch
   * is made by `wrap` from the bare bash launch, without the default
   * resource limits, when `wrap` is given; by the confiner's plan otherwise.
   */
  async run(
    spec: BashExecSpec,
    wrap: ((launch: Launch) => Launch) | undefined,
  ): Promise<BashRunResult> {
    checkForeground(spec);
    return await finishRun(spec, await this.#launch(spec, false, wrap), this.#env.scrubbed);
  }

  /** Starts `spec` in the background and resolves once it is spawned. */
  async start(spec: BashExecSpec): Promise<BashProcess> {
    checkBackground(spec);
    const launched = await this.#launch(spec, true, undefined);
    const { pid } = launched.running;
    return backgroundProcess(
      spec,
      launched,
      spec.terminal === undefined
        ? undefined
        : localTerminal(this.config.runtime, this.config.toolPath, () => pid),
    );
  }

  /**
   * The private 0700 directory (see `LocalBashExecutor.privateDir`); rejects
   * with `BashSpawnError` once disposed, or when it cannot be made.
   */
  async privateDir(): Promise<string> {
    this.#lifecycle.checkOpen();
    // Started first, so the folder's name can carry its owner (see #privateDir).
    await this.#watchdog?.ready();
    this.#lifecycle.checkOpen();
    return privateDirIn(this.config.spillDir, () => this.#privateDir());
  }

  /** Makes `signals` dispose the executor (see `LocalBashExecutor.killOnSignals`). */
  killOnSignals(signals: readonly HostSignal[]): Disposable {
    return this.#lifecycle.killOnSignals(signals);
  }

  /**
   * Kills every running command, awaits every exit, and removes the private
   * directory unless `keepSpillFiles`; `run()` and `start()` reject afterwards.
   */
  async dispose(): Promise<void> {
    try {
      await this.#lifecycle.dispose({
        stop: () => this.#confiner.stop(),
        close: async () => {
          await this.#cgroups?.dispose();
          if (this.#dir !== null && !this.config.keepSpillFiles) {
            rmSync(this.#dir, { recursive: true, force: true });
            this.#dir = null;
          }
          await this.#watchdog?.close();
        },
      });
    } finally {
      // The sandbox's proxy, once what could still use it is gone.
      await this.#confiner.dispose();
    }
  }

  /** What the confiner may use of the engine. */
  #host(): ConfinerHost {
    return {
      privateDir: () => this.privateDir(),
      runDirect: (request, wrap) => this.run(this.resolve(request), wrap),
      startAhead: (launch, runs) => startAhead(this.#ahead, launch, runs),
      endAhead: (child) => endAhead(this.#ahead, child),
      bareLaunch: (command, cwd) => {
        const bash = this.#bash;
        return bash === null
          ? undefined
          : { program: bash, args: bashArgs(bash, command), cwd, env: {} };
      },
      cgroupSlot: async (limits) => {
        const support = cgroupSupportFor(
          this.config.useCgroups,
          limits,
          platformOf(this.config.runtime).os,
        );
        const held = cgroupLimits(limits, support);
        if (held.length === 0) return undefined;
        // Named after the watchdog's owner, which it tells when it starts.
        await this.#watchdog?.ready();
        return this.#slot(limits, support, held);
      },
      config: this.config,
    };
  }

  /** The cgroups of a call with `limits`, which cgroups of `support` hold (`held`, some). */
  #slot(limits: ResourceLimits, support: CgroupSupport, held: readonly string[]): CgroupSlot {
    return {
      key: held.join(","),
      limits,
      make: () => this.#commandCgroup(limits, support),
    };
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
    return this.#lifecycle.launch(
      this.#spawn(spec, background, wrap).catch((error) => Promise.reject(launchFailure(error))),
    );
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
    const terminal = spec.terminal;
    const env = commandEnv(this.#env, spec.env, spec.managedEnv, terminal !== undefined);
    // Last, so no caller displaces it: a kill finds the command's processes in
    // other sessions by it, and on the host's death the watchdog kills what carries it.
    const number = ++this.#commands;
    const marker = `${this.#watchdog?.token ?? "none"}.${number}`;
    env[WATCHDOG_VARIABLE] = marker;
    const limits = wrap === undefined
      ? mergeLimits(this.#confiner.defaultLimits(spec), spec.limits)
      : {};
    const platform = platformOf(this.config.runtime);
    const enforcesData = platform.enforcesDataLimit;
    const support = cgroupSupportFor(this.config.useCgroups, limits, platform.os);
    const held = cgroupLimits(limits, support);
    // In a terminal, bash runs `script`, which runs the command (see _terminal.ts).
    let command = spec.command;
    const mode = this.#hooks.sandboxMode();
    const confined = mode !== undefined && confines(spec.sandboxPolicy?.mode ?? mode);
    // Found once. Bash execs it outside any sandbox when the call is not confined: checked then.
    const unconfinedScript: string[] = [];
    if (terminal !== undefined) {
      const script = this.#script ??= findScript(this.config.runtime);
      command = terminalCommand(spec.command, terminal, script.path, script.flavour);
      if (!confined) unconfinedScript.push(script.path);
    }
    const bashLaunch: Launch = {
      program: bash,
      args: bashArgs(bash, command),
      cwd: spec.workdir,
      env,
    };
    const { config } = this;
    const setsid = config.setsidPath;
    const keepStdinOpen = background && (spec.keepStdinOpen === true || terminal !== undefined);
    const watchdog = this.#watchdog;
    let cgroup: CommandCgroup | null = null;
    if (held.length > 0) {
      // Named after the watchdog's owner, which it tells when it starts.
      await watchdog?.ready();
      this.#checkCanSpawn(spec);
      cgroup = await this.#commandCgroup(limits, support);
    }
    const rlimits = rlimitsOf(limits, held);
    const launchLimits: LaunchLimits = {
      rlimits,
      cgroupProcs: cgroup?.procsFiles ?? [],
      ...(cgroup === null ? {} : { cgroups: this.#slot(limits, support, held) }),
    };
    // Made only when it is spawned: a call that a process started ahead takes never reads it.
    let launch: Launch | undefined;
    let plan: LaunchPlan;
    try {
      plan = wrap !== undefined
        ? { launch: wrap(bashLaunch) }
        : await this.#confiner.plan(spec, bashLaunch, launchLimits);
      this.#checkCanSpawn(spec);
      await watchdog?.ready();
      this.#checkCanSpawn(spec);
      this.#checkPrivateDir();
    } catch (error) {
      await cgroup?.close();
      throw error;
    }
    const hits: { hit?: ResourceLimitHit } = {};
    let child: SpawnedChild | undefined;
    let forksAtSpawn: number | null | undefined;
    // A process started ahead runs the launch, in cgroups of its own; else it is spawned below.
    let ahead: StartedAhead | undefined;
    try {
      ahead = await plan.takeAhead?.(spec.signal);
      // None took it, and nothing of it ran: spawned below, unless the call ended meanwhile.
      if (ahead === undefined && plan.takeAhead !== undefined) this.#checkCanSpawn(spec);
    } catch (error) {
      await cgroup?.close();
      throw error;
    }
    // Of the launch spawned last (one planned again may not announce its start), or taken
    // ahead: whether its own input went to its stdin already (see awaitStart), and whether it
    // said its command started (see LaunchOutcome.started).
    let inputWritten = false;
    let started: boolean | undefined;
    if (ahead !== undefined) {
      await cgroup?.close();
      ({ child, cgroup, forksAtSpawn, started } = ahead);
    }
    for (let launches = 1; child === undefined; launches++) {
      inputWritten = false;
      started = undefined;
      let spawned: SpawnedChild;
      try {
        launch ??= limitedPlan(plan, rlimits, cgroup?.procsFiles ?? [], bash);
        // Again at the spawn: a call planned meanwhile (during this one's walk, say) may have
        // been granted, and have written, the folder of a program its plan checked.
        this.#vet("The command was not run", [
          ...(setsid === null ? [] : [setsid]),
          launch.program,
          ...unconfinedScript,
        ]);
      } catch (error) {
        await cgroup?.close();
        throw error;
      }
      try {
        spawned = await config.runtime.spawn({
          ...inOwnSession(setsid, launch.program, launch.args),
          cwd: launch.cwd,
          env: launch.env,
          stdin: spec.stdin !== undefined || keepStdinOpen || launch.input !== undefined
            ? "piped"
            : "null",
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
      started = start.state === "unknown" ? undefined : start.state === "started";
      if (start.state !== "ended" || launches >= MAX_LAUNCHES) {
        child = start.child;
        break;
      }
      // The command never ran: when the retry says so, the plan is settled unused and the call
      // planned again; when it rejects, the plan is settled unused and the call rejects.
      const retried = Promise.resolve(announced.retry(start.stderr));
      if (!await retried.catch(() => true)) {
        child = start.child;
        break;
      }
      const status = await spawned.exited;
      watchdog?.release(spawned.pid);
      plan.namespaceStrays?.();
      plan.describe?.({
        exitCode: status.code,
        signal: status.signal,
        stderrText: start.stderr,
        killedByExecutor: false,
        started: false,
      });
      try {
        await retried;
        this.#checkCanSpawn(spec);
        plan = await this.#confiner.plan(spec, bashLaunch, launchLimits);
        launch = limitedPlan(plan, rlimits, cgroup?.procsFiles ?? [], bash);
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
      stdin: launch?.input === undefined || inputWritten
        ? stdin
        : joined(launch.input, stdin ?? null),
      keepStdinOpen,
      ...(started === undefined ? {} : { started }),
      strayGaps: this.#onceGaps(),
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
    this.#lifecycle.track(running);
    const verdict = plan.verdict?.(started);
    const passed = verdict?.then(() => true, () => false) ?? true;
    running.settled.then(async () => {
      watchdog?.release(child.pid);
      const { afterSettle } = plan;
      // After the caller has its result; never for a launch the verdict refused.
      if (afterSettle !== undefined && await passed) setTimeout(afterSettle, 0);
    });
    try {
      await verdict;
    } catch (error) {
      running.kill("kill");
      await running.settled;
      throw error;
    }
    return {
      running,
      plan,
      limits,
      applied: appliedLimits(limits, confined, support, undefined, enforcesData),
      cgroup: cgroup === null ? null : hits,
    };
  }

  /**
   * The gaps this platform has for every command (see {@linkcode platformGaps}),
   * the first time it is asked, and none after: said on the executor's
   * first command's `strays`, whatever its limits, once per executor.
   */
  #onceGaps(): string[] {
    if (this.#toldGaps) return [];
    this.#toldGaps = true;
    return platformGaps(platformOf(this.config.runtime));
  }

  /** Command n's cgroup with `limits`, in this executor's folder (made on first use). */
  #commandCgroup(limits: ResourceLimits, support: CgroupSupport): Promise<CommandCgroup> {
    const watchdog = this.#watchdog ?? null;
    this.#cgroups ??= ExecutorCgroups.forExecutor(support, watchdog, this.config.runtime);
    return this.#cgroups.create(limits, (folder) => watchdog?.guardCgroups(folder));
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

  /**
   * Throws `BashSpawnError` (`outcome`, then why) when the confiner says
   * that `programs`, about to run outside any sandbox, lie where a confined
   * command could have replaced them.
   */
  #vet(outcome: string, programs: readonly string[]): void {
    // Read when asked: the watchdog starts after the constructor made the confiner.
    const reason = this.#confiner.unconfinedExposure(programs);
    if (reason !== undefined) throw new BashSpawnError(`${outcome}: ${reason}`);
  }

  #checkCanSpawn(spec: BashExecSpec): void {
    this.#lifecycle.checkCanSpawn(spec);
  }
}
