import { messageOf } from "../seam/_message.ts";
import {
  membersOfSessions,
  processesWithEnvs,
  recentProcessesWithEnv,
  recentSessionMembers,
} from "./_census.ts";
import { type Watchdog, WATCHDOG_VARIABLE } from "./_watchdog.ts";
import type { Runtime } from "../runtime/mod.ts";

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
  readonly #sessions = new CensusBatch(membersOfSessions);
  readonly #marks = new CensusBatch(processesWithEnvs);

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
          ? await this.#sessions.ask(sid)
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
          ? await this.#marks.ask(entry)
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

/**
 * Censuses of the whole of /proc asked for at about the same time, taken
 * once: each key asked for before the census starts gets its answer from
 * it (a census started after the question, never an older one). Each costs
 * a read of every process (about 20 ms for 120 processes on a loaded
 * machine); disposing of 200 commands asked for about 1,000 of them one by
 * one, which held the event loop for minutes.
 */
class CensusBatch<Key> {
  readonly #take: (keys: ReadonlySet<Key>) => Map<Key, number[]>;
  #waiting = new Map<Key, PromiseWithResolvers<number[]>[]>();

  /** `take`: one census answering every key, each key's pids (none: left out). */
  constructor(take: (keys: ReadonlySet<Key>) => Map<Key, number[]>) {
    this.#take = take;
  }

  /** The pids of `key` in the next census; rejects when it could not be taken. */
  ask(key: Key): Promise<number[]> {
    const answer = Promise.withResolvers<number[]>();
    if (this.#waiting.size === 0) setTimeout(() => this.#census(), 0);
    const asked = this.#waiting.get(key);
    if (asked === undefined) this.#waiting.set(key, [answer]);
    else asked.push(answer);
    return answer.promise;
  }

  #census(): void {
    const waiting = this.#waiting;
    this.#waiting = new Map();
    let found: Map<Key, number[]>;
    try {
      found = this.#take(new Set(waiting.keys()));
    } catch (error) {
      for (const answers of waiting.values()) for (const { reject } of answers) reject(error);
      return;
    }
    for (const [key, answers] of waiting) {
      for (const { resolve } of answers) resolve([...(found.get(key) ?? [])]);
    }
  }
}
