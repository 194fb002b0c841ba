/**
 * Standbys: processes started ahead of the commands that will run in them
 * (see `LaunchStandby`), at most one per key, each in cgroups of its own
 * that it joined while nothing waited for it.
 *
 * @module
 */
import type { CommandCgroup } from "./_cgroup.ts";
import { forkCount } from "./_census.ts";
import type { ResolvedLocalBashExecutorConfig } from "./_config.ts";
import type { ProcessControl } from "./_control.ts";
import { disposedError } from "./_lifecycle.ts";
import type { Watchdog } from "./_watchdog.ts";
import type { Launch } from "./_launch.ts";
import type { SpawnedChild } from "../runtime/mod.ts";
import { LAUNCH_STARTED, prepend } from "./_start.ts";

/** A started standby, waiting for its input. */
export interface Standby {
  /** Its cgroups' limits (`processes`, `memoryBytes`): the pool's key. */
  readonly key: string;
  /** The `LaunchStandby.key` of the launches it can run. */
  readonly launchKey: string;
  readonly child: SpawnedChild;
  /** The cgroups it joined, which the command it runs takes over. */
  readonly cgroup: CommandCgroup;
  /** `forkCount()` just after it was spawned: every process of its command is younger. */
  readonly forksAtSpawn: number | null;
}

/** What the executor does for its standbys. */
export interface StandbyHost {
  /** Spawns `launch` in a session of its own with stdin piped, and tells the watchdog. */
  spawn(launch: Launch): Promise<{ child: SpawnedChild; forksAtSpawn: number | null }>;
  /** Kills a standby no command will take (its session), and tells the watchdog once it is gone. */
  discard(child: SpawnedChild): Promise<void>;
}

/**
 * The executor's standbys. One that exits while it waits (killed by
 * someone, or it could not join its cgroups) is dropped, and the next
 * command starts as usual.
 */
export class Standbys {
  readonly #host: StandbyHost;
  readonly #waiting = new Map<string, Standby>();
  readonly #starting = new Set<string>();
  readonly #exited = new WeakSet<SpawnedChild>();
  /** Starts and removals under way, which disposal awaits. */
  readonly #pending = new Set<Promise<void>>();
  #disposed = false;

  constructor(host: StandbyHost) {
    this.#host = host;
  }

  /** A live standby for `key`, taken out of the pool (the caller runs it, puts it back or discards it). */
  take(key: string): Standby | undefined {
    const standby = this.#waiting.get(key);
    if (standby === undefined) return undefined;
    this.#waiting.delete(key);
    if (this.#exited.has(standby.child)) {
      this.#drop(standby);
      return undefined;
    }
    return standby;
  }

  /**
   * Starts a standby for `key` unless one waits or is starting: `cgroup()`
   * gives its cgroups, `launch(procs)` what to start (for launches of
   * `launchKey`). Failing, it leaves nothing behind (the next command starts
   * as usual).
   */
  prepare(
    key: string,
    launchKey: string,
    cgroup: () => Promise<CommandCgroup>,
    launch: (cgroupProcs: readonly string[]) => Launch,
  ): Promise<void> {
    if (this.#disposed || this.#waiting.has(key) || this.#starting.has(key)) {
      return Promise.resolve();
    }
    this.#starting.add(key);
    return this.#track(this.#start(key, launchKey, cgroup, launch));
  }

  async #start(
    key: string,
    launchKey: string,
    cgroup: () => Promise<CommandCgroup>,
    launch: (cgroupProcs: readonly string[]) => Launch,
  ): Promise<void> {
    let held: CommandCgroup | undefined;
    try {
      held = await cgroup();
      const { child, forksAtSpawn } = await this.#host.spawn(launch(held.procsFiles));
      const standby: Standby = { key, launchKey, child, cgroup: held, forksAtSpawn };
      child.exited.then(() => {
        this.#exited.add(child);
        if (this.#waiting.get(key) === standby) {
          this.#waiting.delete(key);
          this.#drop(standby);
        }
      });
      if (this.#disposed) this.#drop(standby);
      else this.#waiting.set(key, standby);
    } catch {
      // No standby: the next command starts as usual, and says what fails then.
      await held?.close();
    } finally {
      this.#starting.delete(key);
    }
  }

  /**
   * Hands a standby its launch (`input` on its stdin, then closed) and
   * returns it as the command's child once it said that it runs the launch:
   * {@linkcode LAUNCH_STARTED}, the first byte of its stdout, which the
   * returned child's stdout no longer has. Undefined when it cannot take the
   * launch: it is gone (killed while it waited, or after it was taken), or it
   * ended before it said so; nothing of the launch ran, and it is dropped
   * (the caller starts the command as usual).
   */
  async hand(standby: Standby, input: Uint8Array): Promise<SpawnedChild | undefined> {
    const { child } = standby;
    child.ref();
    const reader = child.stdout.getReader();
    let head: Uint8Array;
    try {
      const writer = (child.stdin as WritableStream<Uint8Array>).getWriter();
      await writer.write(input);
      await writer.close();
      let first = await reader.read();
      while (!first.done && first.value.length === 0) first = await reader.read();
      if (first.done || first.value[0] !== LAUNCH_STARTED) {
        throw new Error("it ended before it said that it runs the launch");
      }
      head = first.value.subarray(1);
    } catch {
      reader.releaseLock();
      this.#drop(standby);
      return undefined;
    }
    return { ...child, stdin: null, stdout: prepend(head, reader) };
  }

  /** Gives back a standby taken but not run: it waits again, unless another does. */
  putBack(standby: Standby): void {
    if (this.#disposed || this.#exited.has(standby.child) || this.#waiting.has(standby.key)) {
      this.#drop(standby);
    } else {
      this.#waiting.set(standby.key, standby);
    }
  }

  /** Kills a standby no command took, and gives its cgroups back once it is gone. */
  discard(standby: Standby): Promise<void> {
    return this.#drop(standby);
  }

  /** Kills every waiting standby; none is started afterwards. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const standby of waiting) this.#drop(standby);
    while (this.#pending.size > 0) await Promise.allSettled(this.#pending);
  }

  #drop(standby: Standby): Promise<void> {
    return this.#track((async () => {
      await this.#host.discard(standby.child);
      await standby.cgroup.close();
    })());
  }

  #track(work: Promise<void>): Promise<void> {
    const tracked = work.catch(() => {}).finally(() => this.#pending.delete(tracked));
    this.#pending.add(tracked);
    return tracked;
  }
}

/** What a local executor lends its standbys (read when used: the executor sets them up after). */
export interface LocalStandbyParts {
  config: () => ResolvedLocalBashExecutorConfig;
  watchdog: () => Watchdog | null;
  control: () => ProcessControl;
  disposed: () => boolean;
}

/**
 * Standbys of a local executor: spawned in a session of their own as its
 * commands are (the setsid binary or the runtime's own), known to the
 * watchdog, and unref'd: a waiting standby does not keep the host alive,
 * and the watchdog ends it with the host.
 */
export function localStandbyHost(parts: LocalStandbyParts): StandbyHost {
  return {
    spawn: async (launch) => {
      const watchdog = parts.watchdog();
      await watchdog?.ready();
      if (parts.disposed()) throw disposedError();
      const { setsidPath, runtime, sessionStrategy } = parts.config();
      const child = await runtime.spawn({
        program: setsidPath ?? launch.program,
        args: setsidPath === null ? launch.args : [launch.program, ...launch.args],
        cwd: launch.cwd,
        env: launch.env,
        stdin: "piped",
        session: sessionStrategy,
      });
      const forksAtSpawn = forkCount();
      watchdog?.watch(child.pid);
      child.unref();
      return { child, forksAtSpawn };
    },
    discard: async (child) => {
      child.ref();
      await parts.control().signal("SIGKILL", [child.pid, -child.pid]).catch(() => {});
      await Promise.all([
        child.exited,
        child.stdout.cancel().catch(() => {}),
        child.stderr.cancel().catch(() => {}),
        child.stdin?.abort().catch(() => {}),
      ]);
      parts.watchdog()?.release(child.pid);
    },
  };
}
