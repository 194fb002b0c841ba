import { messageOf } from "../seam/_message.ts";
import {
  processesWithEnv,
  recentProcessesWithEnv,
  recentSessionMembers,
  sessionMembers,
} from "./_census.ts";
import { type Watchdog, WATCHDOG_VARIABLE } from "./_watchdog.ts";
import type { Runtime } from "./runtime/_types.ts";

/** A signal the executor sends to a command's processes. */
export type KillSignal = "SIGTERM" | "SIGKILL";

/**
 * How the executor finds and signals a command's processes: by itself where
 * the runtime lets it, else through the watchdog, which reads /proc and sends
 * signals for a host that may not (Deno refuses /proc without `--allow-all`
 * and signals under a scoped `--allow-run`; EMFILE refuses every open). A
 * refused permission is remembered, so later calls go straight to the
 * watchdog; any other failure is retried in-process next time.
 */
export class ProcessControl {
  readonly #runtime: Runtime;
  readonly #watchdog: Watchdog | null;
  #procRefused: string | null = null;
  #killRefused = false;

  /** `watchdog` is null where no bash was found, so no command can run either. */
  constructor(runtime: Runtime, watchdog: Watchdog | null) {
    this.#runtime = runtime;
    this.#watchdog = watchdog;
  }

  /**
   * Live members of session `sid`. With `forksAtSpawn` (see
   * `recentSessionMembers`) an in-process census reads only the pids handed
   * out since the spawn. Rejects, saying why, when no census could be taken.
   */
  async members(sid: number, forksAtSpawn?: number | null): Promise<number[]> {
    let reason = this.#procRefused;
    if (reason === null) {
      try {
        return forksAtSpawn === undefined
          ? sessionMembers(sid)
          : recentSessionMembers(sid, forksAtSpawn);
      } catch (error) {
        reason = messageOf(error);
        if (this.#runtime.deniedPermission(error)) this.#procRefused = reason;
      }
    }
    try {
      if (this.#watchdog === null) throw new Error("there is no watchdog without bash");
      return await this.#watchdog.census(sid);
    } catch (error) {
      throw new Error(`${reason}; ${messageOf(error)}`, { cause: error });
    }
  }

  /**
   * Live processes whose environment carries `SHELLSEAM_WATCHDOG=<marker>`:
   * a command's processes in other sessions (a pid namespace's, or one that
   * called setsid). Rejects, saying why, when they could not be looked for.
   * `since`: read only the pids handed out since the command (session `sid`)
   * was spawned, when that can be known (`forksAtSpawn` as for {@linkcode members}).
   */
  async marked(
    marker: string,
    since?: { sid: number; forksAtSpawn: number | null },
  ): Promise<number[]> {
    const entry = `${WATCHDOG_VARIABLE}=${marker}`;
    let reason = this.#procRefused;
    if (reason === null) {
      try {
        return since === undefined
          ? processesWithEnv(entry)
          : recentProcessesWithEnv(entry, since.sid, since.forksAtSpawn);
      } catch (error) {
        reason = messageOf(error);
        if (this.#runtime.deniedPermission(error)) this.#procRefused = reason;
      }
    }
    try {
      if (this.#watchdog === null) throw new Error("there is no watchdog without bash");
      return await this.#watchdog.marked(entry);
    } catch (error) {
      throw new Error(`${reason}; ${messageOf(error)}`, { cause: error });
    }
  }

  /**
   * Sends `signal` to each target (a negative one is a process group).
   * Targets the runtime may not signal are signalled by the watchdog; rejects
   * when that fails too.
   */
  async signal(signal: KillSignal, targets: readonly number[]): Promise<void> {
    const refused: number[] = [];
    for (const target of targets) {
      if (this.#killRefused || !this.#trySend(target, signal)) refused.push(target);
    }
    if (refused.length === 0) return;
    if (this.#watchdog === null) throw new Error("there is no watchdog without bash");
    await this.#watchdog.signal(signal, refused);
  }

  /** Whether process (or group) `target` exists; true when that cannot be told. */
  exists(target: number): boolean {
    if (this.#killRefused) return true;
    try {
      return this.#runtime.kill(target, 0);
    } catch (error) {
      if (this.#runtime.deniedPermission(error)) this.#killRefused = true;
      return true;
    }
  }

  /** Sends one signal; false when the runtime refused it (gone targets count as sent). */
  #trySend(target: number, signal: KillSignal): boolean {
    try {
      this.#runtime.kill(target, signal);
      return true;
    } catch (error) {
      if (this.#runtime.deniedPermission(error)) this.#killRefused = true;
      return false;
    }
  }
}
