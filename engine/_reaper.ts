import type { StrayReport } from "../seam/mod.ts";
import { messageOf } from "../seam/message.ts";
import type { KillSignal, ProcessControl } from "./_control.ts";

/** How long processes that got SIGKILL may take to disappear before they count as survivors. */
const SURVIVOR_WAIT_MS = 1000;
const MAX_POLL_MS = 50;
/** How long children whose pipes closed get to finish exiting before they count as strays. */
const EXIT_SETTLE_MS = 20;

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/**
 * Ends one command's process group and session: SIGTERM, then SIGKILL after
 * the grace period (a second request does not restart the timer), each
 * followed by a census of the session so processes that left the group die
 * too. A census that cannot be taken never reads as "nothing left": the
 * group is killed anyway and the report says the census failed.
 */
export class GroupReaper {
  readonly #control: ProcessControl;
  readonly #sid: number;
  readonly #graceMs: number;
  readonly #forksAtSpawn: number | null;
  readonly #marker: string | undefined;
  #terminated = false;
  #leaderAlive = true;
  /** Whether the group got SIGTERM (see `#signal`). */
  #groupTermed = false;
  #killedAt = -1;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The processes the sweep found and killed (the cgroup cleanup after it counts none twice). */
  readonly killedPids: Set<number> = new Set();

  /**
   * `sid` is the spawned program's pid, which is also its pgid and sid;
   * `marker`, when given, the value of SHELLSEAM_WATCHDOG in its environment;
   * `forksAtSpawn`, `forkCount()` just after the spawn (taken now by default).
   */
  constructor(
    control: ProcessControl,
    sid: number,
    graceMs: number,
    marker?: string,
    forksAtSpawn: number | null = control.forkCount(),
  ) {
    this.#control = control;
    this.#sid = sid;
    this.#graceMs = graceMs;
    this.#marker = marker;
    this.#forksAtSpawn = forksAtSpawn;
  }

  /**
   * Marks the spawned program as exited (and reaped): from now on its pid may
   * be reused, so only its group and session are signalled.
   */
  leaderExited(): void {
    this.#leaderAlive = false;
  }

  /** SIGTERM now, SIGKILL after the grace period; idempotent. */
  terminate(): void {
    if (this.#terminated) return;
    this.#terminated = true;
    this.#signalAll("SIGTERM");
    this.#timer = setTimeout(() => this.#forceKill(), this.#graceMs);
  }

  /**
   * Called once the program has exited: kills whatever is left of its group
   * and session and reports it. Until a kill is requested the census reads
   * only the pids handed out since the spawn: every member of the session is
   * younger than its leader. (A group that still exists is no reason to read
   * them all: bwrap exits before the init of its pid namespace is reaped.)
   */
  async sweep(pipesOpen: boolean): Promise<StrayReport> {
    const quiet = !this.#terminated;
    const seen = this.killedPids;
    let members: number[];
    // After a command that ended by itself, the first census looks for its marker
    // outside the session too: those found are what the marker's census would find.
    const first = quiet && this.#marker !== undefined
      ? this.#control.recentMembersAndMarked(this.#sid, this.#forksAtSpawn, this.#marker)
      : undefined;
    try {
      members = first?.members ?? await this.#census(quiet);
      if (members.length > 0 && !pipesOpen && !this.#terminated) {
        // Closed pipes can mean the last children are on their way out: look again
        // so that a process that ended by itself is not counted as killed.
        await sleep(EXIT_SETTLE_MS);
        members = await this.#census(quiet);
      }
      for (const pid of members) seen.add(pid);
      if (members.length > 0) {
        if (this.#terminated) this.#signal(this.#killedAt < 0 ? "SIGTERM" : "SIGKILL", members);
        else this.terminate();
      }
      let pause = 5;
      while (members.length > 0) {
        if (this.#killedAt >= 0 && performance.now() - this.#killedAt > SURVIVOR_WAIT_MS) break;
        await sleep(pause);
        pause = Math.min(pause * 2, MAX_POLL_MS);
        members = await this.#census(false);
        const fresh = members.filter((pid) => !seen.has(pid));
        for (const pid of fresh) seen.add(pid);
        if (fresh.length > 0) this.#signal(this.#killedAt < 0 ? "SIGTERM" : "SIGKILL", fresh);
      }
      // Processes that left the session (setsid, a pid namespace's) are found by
      // the marker in their environment; after a command that ended by itself,
      // only among the pids handed out since its spawn (every environment is
      // not cheap to read).
      if (this.#marker !== undefined) {
        const since = this.#terminated
          ? undefined
          : { sid: this.#sid, forksAtSpawn: this.#forksAtSpawn };
        // The first census's, when it found no member and no kill came since: it read
        // the pids the marker's census would read.
        const marked = first !== undefined && first.members.length === 0 && !this.#terminated
          ? first.marked
          : undefined;
        const outside = await this.#killMarked(this.#marker, seen, members, since, marked);
        members = [...members, ...outside];
      }
    } catch (error) {
      return await this.#sweepBlind(seen.size, messageOf(error));
    }
    this.dispose();
    return { killed: seen.size - members.length, survivors: members };
  }

  /**
   * SIGKILLs the live processes carrying `marker` outside the session
   * (`survivors`: its members still alive, already reported), and returns
   * those still alive after {@linkcode SURVIVOR_WAIT_MS}. One the session
   * census saw is killed again: it may have called setsid() between that
   * census and the signal to the group, which then missed it.
   */
  async #killMarked(
    marker: string,
    seen: Set<number>,
    survivors: readonly number[],
    since: { sid: number; forksAtSpawn: number | null } | undefined,
    found?: readonly number[],
  ): Promise<number[]> {
    let marked = (found ?? await this.#control.marked(marker, since)).filter((pid) =>
      !survivors.includes(pid)
    );
    if (marked.length === 0) return [];
    for (const pid of marked) seen.add(pid);
    this.#control.signal("SIGKILL", marked).catch(() => {});
    const deadline = performance.now() + SURVIVOR_WAIT_MS;
    let pause = 5;
    while (marked.length > 0 && performance.now() < deadline) {
      await sleep(pause);
      pause = Math.min(pause * 2, MAX_POLL_MS);
      const left = new Set(await this.#control.marked(marker));
      marked = marked.filter((pid) => left.has(pid));
    }
    return marked;
  }

  /** Stops the SIGKILL timer. */
  dispose(): void {
    clearTimeout(this.#timer);
  }

  /**
   * Without a census, the process group is killed whatever is in it (TERM,
   * then KILL after the grace period) and awaited; processes that left the
   * group cannot be found, and the report says so.
   */
  async #sweepBlind(killed: number, reason: string): Promise<StrayReport> {
    if (this.#control.exists(-this.#sid)) {
      this.terminate();
      let pause = 5;
      while (this.#control.exists(-this.#sid)) {
        if (this.#killedAt >= 0 && performance.now() - this.#killedAt > SURVIVOR_WAIT_MS) break;
        await sleep(pause);
        pause = Math.min(pause * 2, MAX_POLL_MS);
      }
    }
    this.dispose();
    return { killed, survivors: [], censusFailed: reason };
  }

  #census(quiet: boolean): Promise<number[]> {
    return quiet
      ? this.#control.members(this.#sid, this.#forksAtSpawn)
      : this.#control.members(this.#sid);
  }

  #forceKill(): void {
    this.#killedAt = performance.now();
    this.#signalAll("SIGKILL");
  }

  /** `signal` to the group (or the program, before it made one), then to every member a census finds. */
  #signalAll(signal: KillSignal): void {
    this.#signal(signal, []);
    this.#control.members(this.#sid).then(
      (members) => members.length > 0 && this.#signal(signal, members),
      () => {
        // The sweep takes its own census and reports a failure.
      },
    );
  }

  /**
   * `signal` to the group and to those of `members` outside it. The group
   * gets SIGTERM once: a process signalled twice may run its trap twice (a
   * loaded machine showed a TERM trap's cleanup run twice, when the census
   * after the first signal brought a second), and a second TERM would end
   * what the trap started to clean up; what the group holds later gets
   * SIGKILL after the grace, as every process does.
   */
  #signal(signal: KillSignal, members: readonly number[]): void {
    // Until the launcher has called setsid() there is no group to signal yet,
    // so the program itself is signalled while it is alive; once there is,
    // the group alone, with the members that left it.
    const group = !(this.#leaderAlive && !this.#control.exists(-this.#sid));
    const again = group && signal === "SIGTERM" && this.#groupTermed;
    const targets = [
      ...(again ? [] : [group ? -this.#sid : this.#sid]),
      ...this.#control.outsideGroup(members, this.#sid),
    ];
    if (group && signal === "SIGTERM") this.#groupTermed = true;
    // A signal that could not be sent leaves its target alive, and the census
    // that follows every signal reports it as a survivor.
    if (targets.length > 0) this.#control.signal(signal, targets).catch(() => {});
  }
}
