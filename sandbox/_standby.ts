/**
 * The sandbox's standbys: confined launches started ahead of the calls
 * that will run in them (see `LaunchStandby`), at most one per kind of
 * cgroups, each in cgroups of its own that it joined while nothing waited
 * for it. The engine knows none of this: it lends the confiner a way to
 * start and end a process ahead (`ConfinerHost.startAhead`), cgroups like
 * a call's (`LaunchLimits.cgroups`), and takes a call's process from the
 * plan (`LaunchPlan.takeAhead`).
 *
 * A standby may also be set up ahead (`LaunchStandby.setUp`: bwrap's
 * mounts made with the last call's options, its reporter waiting for the
 * command alone). A call takes it only when its own options are the same,
 * byte for byte, and nothing the mounts rely on changed since before it
 * started (`PathBindings`); otherwise the call starts cold. It is set up
 * once the last command settled and no call came within `UPGRADE_DELAY_MS`,
 * never while a command runs: bwrap's mounts made then took the cores from
 * the command (the agent session below gained nothing), and calls made back
 * to back take the standby that waits for its options as before. What it
 * buys, measured on 2 busy cores in one process alternating this and the
 * standby that waits for its options, in a clone of this repository: a
 * warm `run("true")` took 0.74 of the time (median, 300 ms between calls),
 * the bench's agent session of 42 commands 0.90 (1 s between commands); the
 * checks cost about 0.25 ms a call. The cost: the standby that waited for
 * its options until then is replaced (about 25 ms of CPU a call, spent
 * between calls).
 *
 * @module
 */
import { rmSync } from "node:fs";
import { clearTimeout as clearUnrefTimeout, setTimeout as setUnrefTimeout } from "node:timers";
import type { ResourceLimits } from "../seam/mod.ts";
import type { SpawnedChild } from "../runtime/mod.ts";
import {
  awaitStart,
  type CgroupSlot,
  type CommandCgroup,
  type ConfinerHost,
  type StartedAhead,
} from "../engine/mod.ts";
import type { LaunchStandby, SetUpLaunch } from "./backends/mod.ts";
import { PathBindings } from "./_path_bindings.ts";

/** A started standby, waiting for its input. */
interface Standby {
  /** Its cgroups' kind (`CgroupSlot.key`): the pool's key. */
  readonly key: string;
  /** The `LaunchStandby.key` of the launches it can run. */
  readonly launchKey: string;
  readonly child: SpawnedChild;
  /** The cgroups it joined, which the command it runs takes over. */
  readonly cgroup: CommandCgroup;
  /** `forkCount()` just after it was spawned: every process of its command is younger. */
  readonly forksAtSpawn: number | null;
  /** The file it reports its namespace's count to (see `LaunchStandby.strayReport`), if any. */
  readonly strayReport: string | undefined;
  /**
   * Set up ahead (see `LaunchStandby.setUp`): the options it was set up
   * with, the names on the way to the paths they rely on as they were
   * before it started, and the file it read its setup from.
   */
  readonly setUp?: {
    readonly options: string;
    readonly bindings: PathBindings;
    readonly file: string;
  };
}

/**
 * How long after a call settled a standby that waits for its options gives
 * way to one set up ahead: a call made at once (back to back, or a batch of
 * calls) takes the one that waits, and none is started for nothing (each
 * costs a bash, a cgroup and bwrap's start).
 */
const UPGRADE_DELAY_MS = 20;

/** A setup to make ahead, with the bindings of its paths taken before it starts. */
interface ReadySetUp {
  launch: SetUpLaunch;
  bindings: PathBindings;
}

/** What the standbys use of the engine: how to start and end a process ahead. */
export type StandbyHost = Pick<ConfinerHost, "startAhead" | "endAhead">;

/**
 * A confiner's standbys. One that exits while it waits (killed by someone,
 * or it could not join its cgroups) is dropped, and the next command starts
 * as usual.
 */
export class Standbys {
  readonly #host: StandbyHost;
  readonly #waiting = new Map<string, Standby>();
  /** The standbys starting, by key: each resolves once it waits (or failed to start). */
  readonly #starting = new Map<string, Promise<void>>();
  readonly #exited = new WeakSet<SpawnedChild>();
  /** By key: the `order` of the last `prepare`, whose launch is the likeliest next one. */
  readonly #orders = new Map<string, number>();
  /** The order of the last call that came (see `postpone`). */
  #postponedAt = 0;
  /** By key: a later try at a setup whose paths changed within the last second (see `prepare`). */
  readonly #retries = new Map<string, ReturnType<typeof setUnrefTimeout>>();

  /** Starts and removals under way, which disposal awaits. */
  readonly #pending = new Set<Promise<void>>();
  #disposed = false;

  constructor(host: StandbyHost) {
    this.#host = host;
  }

  /**
   * The process that runs `standby`'s launch with `rlimits`, for a call
   * whose cgroups are of `slot`'s kind: the standby waiting for that kind
   * (or starting: its start is awaited, since it is ahead of a launch
   * spawned now), its cgroups given the call's limits and its input handed over.
   * Undefined when none can take it (none waits, it runs other launches,
   * its limits cannot be written, or it is gone or ended before it said it
   * runs the launch); nothing of the launch ran then, and the engine starts
   * it as usual. One that neither says so nor ends is waited for as a
   * launch spawned is (see `#hand`), or until `signal` aborts.
   */
  async take(
    slot: CgroupSlot,
    standby: LaunchStandby,
    rlimits: ResourceLimits,
    signal?: AbortSignal,
  ): Promise<StartedAhead | undefined> {
    if (!this.#waiting.has(slot.key)) await this.#starting.get(slot.key);
    const waiting = this.#waiting.get(slot.key);
    if (waiting === undefined) return undefined;
    this.#waiting.delete(slot.key);
    if (this.#exited.has(waiting.child)) {
      this.#drop(waiting);
      return undefined;
    }
    if (waiting.launchKey !== standby.key) {
      // Not a launch it can run: it waits for the next one.
      this.#putBack(waiting);
      return undefined;
    }
    const input = this.#inputFor(waiting, standby, rlimits);
    if (input === undefined) {
      // Set up otherwise than this launch would be now: it can run no launch of this kind.
      this.#drop(waiting);
      return undefined;
    }
    try {
      waiting.cgroup.setLimits(slot.limits);
    } catch {
      this.#drop(waiting);
      return undefined;
    }
    const start = await this.#hand(waiting, input, signal);
    return start === undefined ? undefined : {
      child: start.child,
      cgroup: waiting.cgroup,
      forksAtSpawn: waiting.forksAtSpawn,
      ...(start.started ? { started: true } : {}),
    };
  }

  /**
   * What `waiting` is told to run `standby`'s launch with `rlimits`, or
   * undefined when it must not run it. One set up ahead runs it only when
   * its setup is the one the launch would make now: the same options
   * (mounts, environment, working folder), and every name on the way to the
   * paths they rely on unchanged since before it started (see `PathBindings`).
   */
  #inputFor(
    waiting: Standby,
    standby: LaunchStandby,
    rlimits: ResourceLimits,
  ): Uint8Array | undefined {
    if (waiting.setUp === undefined) return standby.input(rlimits);
    const setUp = setUpOf(standby);
    return setUp !== undefined && setUp.options === waiting.setUp.options &&
        waiting.setUp.bindings.hold()
      ? setUp.input(rlimits)
      : undefined;
  }

  /**
   * Starts a standby for `standby`'s launches in cgroups of `slot`'s kind,
   * unless one waits for such launches or is starting for that kind. With
   * its `setUp`, it is set up ahead (see `LaunchStandby.setUp`) when every
   * name on the way to the setup's paths is vouched for by times settled
   * (see `PathBindings`); otherwise it waits for its options, and a later
   * try, once they are settled, sets one up in its place if no call took
   * it. One waiting for other launches (another socket rule, say), or set
   * up otherwise, is ended first: the last call's launch is the likeliest
   * next one (by `order`: the calls' in the order they were planned; a
   * lower one than the last does nothing). With `setUp` "no", it only
   * waits for its options (while a command runs: a setup made then takes
   * the cores from it); with "later", one that waits for its options gives
   * way to one set up ahead after `UPGRADE_DELAY_MS`, unless a call took it
   * or another `prepare` came first. Failing, it leaves nothing behind (the
   * next command starts as usual).
   */
  prepare(
    slot: CgroupSlot,
    standby: LaunchStandby,
    order = 0,
    setUp: "now" | "later" | "no" = "now",
  ): Promise<void> {
    const { key } = slot;
    // A call that settles after a later one started (an agent's next call may come before the
    // last one's settling is done) does not replace the later one's standby.
    if (order < (this.#orders.get(key) ?? 0)) return Promise.resolve();
    // Nor is one set up ahead for a call that settles after a later one came (see `postpone`).
    if (setUp === "later" && order < this.#postponedAt) return Promise.resolve();
    this.#orders.set(key, order);
    clearUnrefTimeout(this.#retries.get(key));
    this.#retries.delete(key);
    const there = this.#waiting.get(key);
    if (
      setUp === "later" && !this.#disposed && standby.setUp !== undefined &&
      (this.#starting.has(key) || (there?.launchKey === standby.key && there.setUp === undefined))
    ) {
      this.#retry(key, () => this.prepare(slot, standby, order), Date.now() + UPGRADE_DELAY_MS);
      return Promise.resolve();
    }
    const launch = setUp === "no" ? undefined : setUpOf(standby);
    const taken = launch === undefined ? undefined : PathBindings.take(launch.paths);
    const ready = launch !== undefined && taken instanceof PathBindings
      ? { launch, bindings: taken }
      : undefined;
    const waiting = this.#waiting.get(key);
    const fits = waiting !== undefined && waiting.launchKey === standby.key &&
      (waiting.setUp === undefined
        ? ready === undefined
        : waiting.setUp.options === launch?.options && waiting.setUp.bindings.hold());
    if (waiting !== undefined && !fits) {
      this.#waiting.delete(key);
      this.#drop(waiting);
    }
    if (this.#disposed) return Promise.resolve();
    // Waiting for its options (or about to): set up in its place once its paths' times are settled.
    if (taken !== undefined && !(taken instanceof PathBindings) && !(fits && waiting.setUp)) {
      this.#retry(key, () => this.prepare(slot, standby, order), taken.settlesAt);
    }
    if (this.#waiting.has(key) || this.#starting.has(key)) return Promise.resolve();
    const starting = this.#track(this.#start(slot, standby, ready));
    this.#starting.set(key, starting);
    return starting;
  }

  /** Calls `prepare` at `time` (ms since the epoch), unless another `prepare` for `key` comes first. */
  #retry(key: string, prepare: () => Promise<void>, time: number): void {
    const retry = setUnrefTimeout(() => {
      this.#retries.delete(key);
      void prepare();
    }, Math.max(0, time - Date.now()) + 1);
    retry.unref();
    this.#retries.set(key, retry);
  }

  /**
   * A call came (confined or not), the `order`th: no standby is set up
   * ahead while it runs (bwrap's mounts would take the cores from its
   * command, and its files would be written beside it), so a setup waiting
   * for its time is called off, and so is one asked for by an earlier call
   * that settles later (the engine settles a call after its caller has the
   * result); the next confined call's settling tries again.
   */
  postpone(order = 0): void {
    this.#postponedAt = Math.max(this.#postponedAt, order);
    for (const retry of this.#retries.values()) clearUnrefTimeout(retry);
    this.#retries.clear();
  }

  /** Kills every waiting standby; none is started afterwards. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    this.postpone();
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const standby of waiting) this.#drop(standby);
    while (this.#pending.size > 0) await Promise.allSettled(this.#pending);
  }

  async #start(
    slot: CgroupSlot,
    standby: LaunchStandby,
    ready: ReadySetUp | undefined,
  ): Promise<void> {
    const { key } = slot;
    let held: CommandCgroup | undefined;
    try {
      held = await slot.make();
      const launch = ready?.launch.prepare(held.procsFiles) ?? standby.prepare(held.procsFiles);
      const { child, forksAtSpawn } = await this.#host.startAhead(launch, standby.runs);
      const started: Standby = {
        key,
        launchKey: standby.key,
        child,
        cgroup: held,
        forksAtSpawn,
        strayReport: standby.strayReport?.(child.pid),
        ...(ready === undefined ? {} : {
          setUp: {
            options: ready.launch.options,
            bindings: ready.bindings,
            file: ready.launch.file,
          },
        }),
      };
      child.exited.then(() => {
        this.#exited.add(child);
        if (this.#waiting.get(key) === started) {
          this.#waiting.delete(key);
          this.#drop(started);
        }
      });
      if (this.#disposed) this.#drop(started);
      else this.#waiting.set(key, started);
    } catch {
      // No standby: the next command starts as usual, and says what fails then.
      if (ready !== undefined) rmSync(ready.launch.file, { force: true });
      await held?.close();
    } finally {
      this.#starting.delete(key);
    }
  }

  /**
   * Hands a standby its launch (`input` on its stdin, then closed) and
   * returns it as the command's child once it said that it runs the launch
   * (`started`):
   * `LAUNCH_STARTED` (the engine's), the first byte of its stdout, which the
   * returned child's stdout no longer has. Undefined when it cannot take the
   * launch: it is gone (killed while it waited, or after it was taken), or it
   * ended before it said so; nothing of the launch ran, and it is dropped.
   * One that does neither (stopped, or its setup hangs) is waited for as a
   * launch spawned is (see `awaitStart`), or until `signal` aborts, and is
   * then the command's child all the same: it may be running the command,
   * so it is not started again, and the command's clocks end it.
   */
  async #hand(
    standby: Standby,
    input: Uint8Array,
    signal: AbortSignal | undefined,
  ): Promise<{ child: SpawnedChild; started: boolean } | undefined> {
    const { child } = standby;
    child.ref();
    const writer = (child.stdin as WritableStream<Uint8Array>).getWriter();
    // Not awaited: one that reads none of it is found below, by the wait for its first byte.
    writer.write(input).then(() => writer.close()).catch(() => {
      // Gone: its stdout ends, which the wait below sees.
    });
    const start = await awaitStart({ ...child, stdin: null }, undefined, signal);
    // Its setup is made (or it ended, or hangs: it opens nothing more then).
    if (standby.setUp !== undefined) rmSync(standby.setUp.file, { force: true });
    if (start.state === "ended") {
      this.#drop(standby);
      return undefined;
    }
    return { child: start.child, started: start.state === "started" };
  }

  /** Gives back a standby taken but not run: it waits again, unless another does. */
  #putBack(standby: Standby): void {
    if (this.#disposed || this.#exited.has(standby.child) || this.#waiting.has(standby.key)) {
      this.#drop(standby);
    } else {
      this.#waiting.set(standby.key, standby);
    }
  }

  #drop(standby: Standby): Promise<void> {
    return this.#track((async () => {
      await this.#host.endAhead(standby.child);
      // Nothing was counted in it: no call reads it.
      if (standby.strayReport !== undefined) rmSync(standby.strayReport, { force: true });
      if (standby.setUp !== undefined) rmSync(standby.setUp.file, { force: true });
      await standby.cgroup.close();
    })());
  }

  #track(work: Promise<void>): Promise<void> {
    const tracked = work.catch(() => {}).finally(() => this.#pending.delete(tracked));
    this.#pending.add(tracked);
    return tracked;
  }
}

/**
 * `standby`'s setup as it would be made now, or undefined when it has none
 * or it cannot be told (a path that cannot be looked at): the launch then
 * starts as usual, and says what fails.
 */
function setUpOf(standby: LaunchStandby): SetUpLaunch | undefined {
  try {
    return standby.setUp?.();
  } catch {
    return undefined;
  }
}
