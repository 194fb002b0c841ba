import type { StrayReport } from "../seam/mod.ts";
import { forkCount, recentSessionMembers, sessionMembers } from "./_census.ts";
import type { Runtime } from "./runtime/_types.ts";

/** How long processes that got SIGKILL may take to disappear before they count as survivors. */
const SURVIVOR_WAIT_MS = 1000;
const MAX_POLL_MS = 50;
/** How long children whose pipes closed get to finish exiting before they count as strays. */
const EXIT_SETTLE_MS = 20;

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/**
 * Ends one command's process group and session: SIGTERM, then SIGKILL after
 * the grace period (a second request does not restart the timer), each
 * followed by a census of the session so processes that left the group die too.
 */
export class GroupReaper {
  readonly #runtime: Runtime;
  readonly #sid: number;
  readonly #graceMs: number;
  readonly #forksAtSpawn: number | null = forkCount();
  #terminated = false;
  #leaderAlive = true;
  #killedAt = -1;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** `sid` is the spawned program's pid, which is also its pgid and sid. */
  constructor(runtime: Runtime, sid: number, graceMs: number) {
    this.#runtime = runtime;
    this.#sid = sid;
    this.#graceMs = graceMs;
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
    this.#signal("SIGTERM", sessionMembers(this.#sid));
    this.#timer = setTimeout(() => this.#forceKill(), this.#graceMs);
  }

  /**
   * Called once the program has exited: kills whatever is left of its group
   * and session and reports it. Without a kill request, open pipes or live
   * group members, only a process that left the group can be left, and the
   * census reads only the pids handed out since the spawn.
   */
  async sweep(pipesOpen: boolean): Promise<StrayReport> {
    const quiet = !pipesOpen && !this.#terminated && !this.#send(-this.#sid, 0);
    const census = quiet
      ? () => recentSessionMembers(this.#sid, this.#forksAtSpawn)
      : () => sessionMembers(this.#sid);
    let members = census();
    if (members.length > 0 && !pipesOpen && !this.#terminated) {
      // Closed pipes can mean the last children are on their way out: look again
      // so that a process that ended by itself is not counted as killed.
      await sleep(EXIT_SETTLE_MS);
      members = census();
    }
    const seen = new Set(members);
    if (members.length > 0) {
      if (this.#terminated) this.#signal(this.#killedAt < 0 ? "SIGTERM" : "SIGKILL", members);
      else this.terminate();
    }
    let pause = 5;
    while (members.length > 0) {
      if (this.#killedAt >= 0 && performance.now() - this.#killedAt > SURVIVOR_WAIT_MS) break;
      await sleep(pause);
      pause = Math.min(pause * 2, MAX_POLL_MS);
      members = sessionMembers(this.#sid);
      const fresh = members.filter((pid) => !seen.has(pid));
      for (const pid of fresh) seen.add(pid);
      if (fresh.length > 0) this.#signal(this.#killedAt < 0 ? "SIGTERM" : "SIGKILL", fresh);
    }
    this.dispose();
    return { killed: seen.size - members.length, survivors: members };
  }

  /** Stops the SIGKILL timer. */
  dispose(): void {
    clearTimeout(this.#timer);
  }

  #forceKill(): void {
    this.#killedAt = performance.now();
    this.#signal("SIGKILL", sessionMembers(this.#sid));
  }

  #signal(signal: "SIGTERM" | "SIGKILL", members: readonly number[]): void {
    // Until the launcher has called setsid() there is no group to signal yet,
    // so the program itself is signalled too while it is alive.
    if (this.#leaderAlive) this.#send(this.#sid, signal);
    this.#send(-this.#sid, signal);
    for (const pid of members) this.#send(pid, signal);
  }

  /** False only when the target is gone; a target we may not signal counts as present. */
  #send(pid: number, signal: "SIGTERM" | "SIGKILL" | 0): boolean {
    try {
      return this.#runtime.kill(pid, signal);
    } catch {
      return true;
    }
  }
}
