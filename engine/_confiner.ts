/**
 * What an executor hands the engine to turn each call into a launch: the
 * local executor's confiner runs bash as it is; the sandbox's wraps it in a
 * backend. The engine runs the plan a confiner returns, and asks nothing
 * else of it in the middle of a run (what to check after the command is in
 * the plan, as data and functions).
 *
 * @module
 */
import type {
  BashExecRequest,
  BashExecSpec,
  BashRunResult,
  ResourceLimits,
  SandboxPolicy,
} from "../seam/mod.ts";
import type { SpawnedChild } from "../runtime/mod.ts";
import type { ResolvedLocalBashExecutorConfig } from "./_config.ts";
import type { CgroupSlot, Launch, LaunchLimits, LaunchPlan } from "./_launch.ts";

/** Turns a call into a launch plan; one per executor, made by it over a {@linkcode ConfinerHost}. */
export interface Confiner {
  /**
   * The policy a spec carries for a request's `sandboxPolicy` (absent or
   * `null` alike): `null` runs unconfined. Throws `BashConfigError` for a
   * policy this executor cannot honour.
   */
  resolvePolicy(policy: SandboxPolicy | null | undefined): SandboxPolicy | null;
  /** The resource limits a call gets before its own go over them. */
  defaultLimits(spec: BashExecSpec): ResourceLimits;
  /**
   * The plan of a call from its bare bash launch; `limits` are the
   * rlimits and cgroups the plan applies (`limitsApplied`), or the engine
   * applies them in front of the plan's launch.
   */
  plan(spec: BashExecSpec, launch: Launch, limits: LaunchLimits): Promise<LaunchPlan>;
  /**
   * Why the host must not run `programs` outside any sandbox now (the
   * watchdog's shell and setsid binary, a process started ahead of a
   * call, the program in front of a call's launch as it is spawned): one
   * lies where a confined command could have replaced it. The
   * reason names the program, where it lies and what to do; undefined when
   * none does (always, for a confiner that confines nothing). Asked before
   * each such spawn, since the roots granted grow from call to call.
   */
  unconfinedExposure(programs: readonly string[]): string | undefined;
  /**
   * Ends what the confiner started ahead of later calls (see
   * {@linkcode ConfinerHost.startAhead}) and starts nothing more; called
   * as disposal starts, before the engine closes its watchdog and cgroups.
   */
  stop(): Promise<void>;
  /** Releases what the confiner holds; called once the executor's commands are gone. */
  dispose(): Promise<void>;
}

/** What the engine lends the confiner it runs for. */
export interface ConfinerHost {
  /** The executor's private folder, made again when an unconfined command removed it. */
  privateDir(): Promise<string>;
  /**
   * Runs `request` on the direct path: its bare launch changed by `wrap`,
   * never planned, without the default limits (the confiner's probes).
   */
  runDirect(request: BashExecRequest, wrap: (launch: Launch) => Launch): Promise<BashRunResult>;
  /**
   * Spawns `launch` ahead of a call, in a session of its own with stdin
   * piped, known to the watchdog (which ends it with the host), and unref'd;
   * `forksAtSpawn` is `forkCount()` just after the spawn. `runs` are the
   * programs it runs unconfined besides its own before any call (a sandbox
   * program it execs at once, say), vetted with it. Rejects with `BashSpawnError` once the
   * executor is disposed, or when one of them must not run outside any
   * sandbox now. A plan hands it to the engine by `LaunchPlan.takeAhead`;
   * one no call takes goes by {@linkcode ConfinerHost.endAhead}.
   */
  startAhead(
    launch: Launch,
    runs?: readonly string[],
  ): Promise<{ child: SpawnedChild; forksAtSpawn: number | null }>;
  /** Kills a process started ahead that no call took (its session), once it is gone. */
  endAhead(child: SpawnedChild): Promise<void>;
  /**
   * The bare launch of a call of `command` in `cwd` (see `Confiner.plan`),
   * without an environment: what a process started ahead of the call is
   * made for, before the call and its environment come. Undefined where
   * no bash was found (no command runs then).
   */
  bareLaunch(command: string, cwd: string): Launch | undefined;
  /**
   * The cgroups of a call whose limits are `limits` (see `LaunchLimits.cgroups`),
   * for a process started ahead of it; undefined when cgroups hold none of
   * them here. Waits for the watchdog, whose owner names them.
   */
  cgroupSlot(limits: ResourceLimits): Promise<CgroupSlot | undefined>;
  /** The executor's validated config. */
  readonly config: ResolvedLocalBashExecutorConfig;
}

/** Makes an executor's confiner over the engine's host. */
export type MakeConfiner = (host: ConfinerHost) => Confiner;

/**
 * A config key (a symbol, so no caller's config can name it by accident)
 * whose function wraps the confiner an executor makes: the tests' way to
 * watch or change what the engine is told, on any executor.
 */
export const WRAP_CONFINER: unique symbol = Symbol("shellseam.wrapConfiner");

/** A config that may carry {@linkcode WRAP_CONFINER}. */
export type WithConfinerWrap = { [WRAP_CONFINER]?: (confiner: Confiner) => Confiner };
