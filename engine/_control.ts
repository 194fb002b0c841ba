import { messageOf } from "../seam/message.ts";
import {
  forkCount,
  membersOfSessions,
  outsideGroup,
  processesWithEnvs,
  recentMembersAndMarked,
  recentProcessesWithEnv,
  recentSessionMembers,
} from "./_census.ts";
import { type Watchdog, WATCHDOG_VARIABLE } from "./_watchdog.ts";
import { platformOf, type Runtime } from "../runtime/mod.ts";

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
  /** Whether this process reads /proc itself (false: every census is the watchdog's). */
  readonly #proc: boolean;
  #procRefused: string | null = null;
  #killRefused = false;
  readonly #sessions = new CensusBatch(membersOfSessions);
  readonly #marks = new CensusBatch(processesWithEnvs);
  /** Where there is no /proc: the portable watchdog's censuses, one `ps` for those asked together. */
  readonly #portableSessions = new CensusBatch<number>((sids) =>
    this.#guard().censusOfAll([...sids])
  );
  readonly #portableMarks = new CensusBatch<string>((entries) =>
    this.#guard().markedAll([...entries])
  );

  /** `watchdog` is null where no bash was found, so no command can run either. */
  constructor(runtime: Runtime, watchdog: Watchdog | null) {
    this.#runtime = runtime;
    this.#watchdog = watchdog;
    this.#proc = platformOf(runtime).proc;
    if (!this.#proc) this.#procRefused = `there is no /proc on ${platformOf(runtime).os}`;
  }

  /** How many tasks the kernel has created since boot, where /proc says; else null. */
  forkCount(): number | null {
    return this.#proc ? forkCount() : null;
  }

  /**
   * `pids` without the members of process group `pgid` (a signal to the
   * group reaches those already): by /proc, or by what the portable
   * watchdog's census said of each; a pid whose group is not known is kept.
   */
  outsideGroup(pids: readonly number[], pgid: number): number[] {
    if (this.#proc) return outsideGroup(pids, pgid);
    return pids.filter((pid) => this.#watchdog?.groupOf(pid) !== pgid);
  }

  /**
   * Live members of session `sid`. With `forksAtSpawn` (see
   * `recentSessionMembers`) an in-process census reads only the pids handed
   * out since the spawn. Rejects, saying why, when no census could be taken.
   */
  async members(sid: number, forksAtSpawn?: number | null): Promise<number[]> {
    // Without /proc a census is a run of `ps`: none is needed once the group is
    // gone (its members' descendants outside it were reparented when their
    // parents died, and only the marker finds them).
    if (!this.#proc && !this.exists(-sid)) return [];
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
      return this.#proc ? await this.#guard().census(sid) : await this.#portableSessions.ask(sid);
    } catch (error) {
      throw new Error(`${reason}; ${messageOf(error)}`, { cause: error });
    }
  }

  /**
   * The first look of a sweep after a command that ended by itself: the
   * live members of session `sid` and the processes outside it carrying
   * `SHELLSEAM_WATCHDOG=<marker>`, in one census of the pids handed out since
   * the spawn (see `recentMembersAndMarked`). Undefined when this process
   * does not read /proc itself or that census failed: the caller then asks
   * {@linkcode members} and {@linkcode marked}, which fall back on the
   * watchdog and say why no census could be taken.
   */
  recentMembersAndMarked(
    sid: number,
    forksAtSpawn: number | null,
    marker: string,
  ): { members: number[]; marked: number[] } | undefined {
    if (this.#procRefused !== null) return undefined;
    try {
      return recentMembersAndMarked(sid, forksAtSpawn, `${WATCHDOG_VARIABLE}=${marker}`);
    } catch (error) {
      if (this.#runtime.deniedPermission(error)) this.#procRefused = messageOf(error);
      return undefined;
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
      return this.#proc ? await this.#guard().marked(entry) : await this.#portableMarks.ask(entry);
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

  /** The watchdog; throws where there is none (no bash was found). */
  #guard(): Watchdog {
    if (this.#watchdog === null) throw new Error("there is no watchdog without bash");
    return this.#watchdog;
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
 * Censuses of every process asked for at about the same time, taken once:
 * each key asked for before the census starts gets its answer from it (a
 * census started after the question, never an older one). On /proc each
 * costs a read of every process (about 20 ms for 120 processes on a loaded
 * machine); disposing of 200 commands asked for about 1,000 of them one by
 * one, which held the event loop for minutes. Without /proc each is a run
 * of `ps` and `awk` by the watchdog, for each command that settles.
 */
class CensusBatch<Key> {
  readonly #take: (keys: ReadonlySet<Key>) => Map<Key, number[]> | Promise<Map<Key, number[]>>;
  #waiting = new Map<Key, PromiseWithResolvers<number[]>[]>();
  /** Whether a census is being taken. */
  #running = false;

  /** `take`: one census answering every key, each key's pids (none: left out). */
  constructor(
    take: (keys: ReadonlySet<Key>) => Map<Key, number[]> | Promise<Map<Key, number[]>>,
  ) {
    this.#take = take;
  }

  /**
   * The pids of `key` in the next census; rejects when it could not be
   * taken. A census runs one at a time: what is asked while one runs waits
   * for the next, which then answers it all at once.
   */
  ask(key: Key): Promise<number[]> {
    const answer = Promise.withResolvers<number[]>();
    if (this.#waiting.size === 0 && !this.#running) setTimeout(() => void this.#census(), 0);
    const asked = this.#waiting.get(key);
    if (asked === undefined) this.#waiting.set(key, [answer]);
    else asked.push(answer);
    return answer.promise;
  }

  async #census(): Promise<void> {
    const waiting = this.#waiting;
    this.#waiting = new Map();
    this.#running = true;
    let found: Map<Key, number[]>;
    try {
      found = await this.#take(new Set(waiting.keys()));
    } catch (error) {
      for (const answers of waiting.values()) for (const { reject } of answers) reject(error);
      return;
    } finally {
      this.#running = false;
      if (this.#waiting.size > 0) setTimeout(() => void this.#census(), 0);
    }
    for (const [key, answers] of waiting) {
      for (const { resolve } of answers) resolve([...(found.get(key) ?? [])]);
    }
  }
}
