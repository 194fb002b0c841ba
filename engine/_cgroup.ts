/**
 * Resource limits through a cgroup: one cgroup per command with its limits,
 * how a command's processes are put in it (its launcher writes its own pid
 * to `cgroup.procs` before it execs anything), what the cgroup says was hit,
 * and its removal. Where cgroups can be made is `_cgroup_support.ts`'s; the
 * sweep of those a dead host left is `_cgroup_sweep.ts`'s.
 *
 * Layout: `<controller folder>/shellseam-exec-<pid>-<start>-<token>/<n>`, one
 * folder per executor (named after its owner, like the private folder, so a
 * later executor removes those of a host that is gone) with one cgroup per
 * command (`shellseam-unowned-<token>` when the owner could not be read: never swept).
 *
 * @module
 */
import { existsSync, mkdirSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BashSpawnError, type ResourceLimitHit, type ResourceLimits } from "../seam/mod.ts";
import { messageOf } from "../seam/message.ts";
import type { Runtime } from "../runtime/mod.ts";
import {
  type CgroupController,
  type CgroupLimit,
  cgroupLimits,
  type CgroupSupport,
  CONTROLLER,
} from "./_cgroup_support.ts";
import { isLive, procsOf, removeCgroup, removeTree, sweepStaleCgroups } from "./_cgroup_sweep.ts";
import { readKernelFile } from "./_kernel_file.ts";

/** The files a command writes its limits to, per version. */
const LIMIT_FILES: Record<CgroupLimit, Record<1 | 2, string[]>> = {
  processes: { 1: ["pids.max"], 2: ["pids.max"] },
  // v1: memsw (memory and swap) exists only with swap accounting; it must not be below the memory limit.
  memoryBytes: { 1: ["memory.limit_in_bytes", "memory.memsw.limit_in_bytes"], 2: ["memory.max"] },
};

/** One cgroup of a slot: which limit it holds, in which version, where. */
interface HeldCgroup {
  limit: CgroupLimit;
  version: 1 | 2;
  cgroup: string;
}

/**
 * A set of cgroups (one per controller a command's limits need) that
 * commands use one at a time: made once, reused while nothing of an earlier
 * command is left in it, removed with the executor's folder.
 */
interface Slot {
  /** Which limits it holds (`processes`, `memoryBytes` or both). */
  key: string;
  cgroups: readonly HeldCgroup[];
  /** What was last written to each limit file. */
  written: Map<string, string>;
  /** Its refusal and kill counts when its last command ended (the next one's baseline). */
  counts: readonly number[];
}

/**
 * One executor's cgroups: its folder under each controller's, made on first
 * use, and cgroups that its commands take turns in. Making and removing a
 * cgroup per command cost more than the command's launch (a removal waits
 * for the exits to complete), so a settled command's cgroups wait, emptied,
 * for the next command.
 */
export class ExecutorCgroups {
  readonly #support: CgroupSupport;
  readonly #name: string;
  readonly #made = new Set<string>();
  /** Each folder's first making (see `#newSlot`), by its path. */
  readonly #first = new Map<string, Promise<void>>();
  readonly #kill: (pid: number) => void;
  readonly #idle: Slot[] = [];
  #slots = 0;

  /** `name`: the executor's folder name (`shellseam-exec-<owner>-<token>`). */
  constructor(support: CgroupSupport, name: string, kill: (pid: number) => void) {
    this.#support = support;
    this.#name = name;
    this.#kill = kill;
  }

  /**
   * The cgroups of an executor whose watchdog (when it has one) names them
   * after its owner and token (`shellseam-exec-<owner>-<token>`); killing by
   * `runtime`'s SIGKILL.
   */
  static forExecutor(
    support: CgroupSupport,
    watchdog: { readonly owner: string | null; readonly token: string } | null,
    runtime: Pick<Runtime, "kill">,
  ): ExecutorCgroups {
    const owner = watchdog?.owner ?? null;
    // Without an owner, no later executor may take the folder for a dead host's.
    const prefix = owner === null ? "shellseam-unowned-" : `shellseam-exec-${owner}-`;
    return new ExecutorCgroups(
      support,
      `${prefix}${watchdog?.token ?? crypto.randomUUID()}`,
      (pid) => {
        try {
          runtime.kill(pid, "SIGKILL");
        } catch {
          // Counted as a survivor when it stays in the cgroup.
        }
      },
    );
  }

  /** The executor's folders made so far (for the watchdog, which removes them when the host dies). */
  get folders(): string[] {
    return [...this.#made];
  }

  /**
   * Cgroups for one command with `limits` (those a cgroup holds): an idle
   * slot's, or new ones (the executor folder first, sweeping those of hosts
   * that are gone), with the limits written. Throws `BashSpawnError` (leaving
   * nothing made for the command) when that fails.
   */
  async create(
    limits: ResourceLimits,
    onNewFolder: (folder: string) => void,
  ): Promise<CommandCgroup> {
    const held = cgroupLimits(limits, this.#support);
    const key = held.join(",");
    const reused = this.#takeIdle(key);
    let slot: Slot | undefined = reused;
    try {
      slot ??= await this.#newSlot(held, key, onNewFolder);
      writeLimits(slot, limits);
      const made = slot;
      return new CommandCgroup(made.cgroups, this.#kill, {
        counts: made.counts,
        release: (counts) => {
          made.counts = counts;
          this.#idle.push(made);
        },
        write: (limits) => writeLimits(made, limits),
      });
    } catch (error) {
      if (slot !== undefined && reused === undefined) {
        for (const cgroup of new Set(slot.cgroups.map(({ cgroup }) => cgroup))) {
          await removeCgroup(cgroup);
        }
      }
      throw new BashSpawnError(
        `Could not set up the command's cgroup for its resource limits (${
          messageOf(error)
        }), so nothing was run; lift "processes" and "memoryBytes" from "limits", or fix the cgroup`,
        { cause: error },
      );
    }
  }

  /**
   * An idle slot for `key` whose cgroups are all still there. One that
   * someone else removed (a cleanup script, systemd: an idle slot is empty,
   * so nothing stops an `rmdir`) would refuse the command that joins it: it
   * is dropped, what is left of it removed, and a new one is made instead.
   */
  #takeIdle(key: string): Slot | undefined {
    for (;;) {
      const index = this.#idle.findIndex((slot) => slot.key === key);
      if (index < 0) return undefined;
      const slot = this.#idle.splice(index, 1)[0] as Slot;
      const cgroups = [...new Set(slot.cgroups.map(({ cgroup }) => cgroup))];
      if (cgroups.every((cgroup) => existsSync(cgroup))) return slot;
      for (const cgroup of cgroups) {
        try {
          rmdirSync(cgroup);
        } catch {
          // Gone already, or holding something: its folder's removal at disposal tries again.
        }
      }
    }
  }

  async #newSlot(
    held: readonly CgroupLimit[],
    key: string,
    onNewFolder: (folder: string) => void,
  ): Promise<Slot> {
    const name = String(++this.#slots);
    const cgroups: HeldCgroup[] = [];
    const slot: Slot = { key, cgroups, written: new Map(), counts: held.map(() => 0) };
    for (const limit of held) {
      const { version, dir } = this.#support[limit] as CgroupController;
      const folder = join(dir, this.#name);
      const make = () => {
        mkdirSync(folder, { recursive: true });
        if (version === 2) {
          // The command cgroups below it get the controllers (it holds no process itself).
          const enable = held.filter((other) => {
            const found = this.#support[other];
            return "version" in found && found.version === 2 && found.dir === dir;
          }).map((other) => `+${CONTROLLER[other]}`);
          writeFileSync(join(folder, "cgroup.subtree_control"), enable.join(" "));
        }
      };
      // Made first after a sweep of the folders of hosts that are gone, once for slots made at
      // once (a process started ahead beside a call's); made again when someone else removed it (empty
      // once no slot is left in it).
      let first = this.#first.get(folder);
      if (first === undefined) {
        first = (async () => {
          await sweepStaleCgroups(dir, this.#kill);
          make();
          this.#made.add(folder);
          onNewFolder(folder);
        })();
        this.#first.set(folder, first);
        // A first making that failed is tried again by the next slot.
        first.catch(() => this.#first.delete(folder));
      }
      await first;
      if (!existsSync(folder)) make();
      const cgroup = join(folder, name);
      // A v2 cgroup holds both controllers: made once.
      if (!cgroups.some((other) => other.cgroup === cgroup)) mkdirSync(cgroup);
      cgroups.push({ limit, version, cgroup });
    }
    return slot;
  }

  /** Removes the executor's folders (their commands have settled). */
  async dispose(): Promise<void> {
    this.#idle.length = 0;
    for (const folder of this.#made) await removeTree(folder, this.#kill);
    this.#made.clear();
    this.#first.clear();
  }
}

/**
 * Writes `limits` to the slot's limit files, those that changed only. A v1
 * swap limit may never be below the memory limit: raised first, lowered last.
 */
function writeLimits(slot: Slot, limits: ResourceLimits): void {
  for (const { limit, version, cgroup } of slot.cgroups) {
    const value = String(limits[limit]);
    const [first, swap] = LIMIT_FILES[limit][version] as [string, string | undefined];
    const path = join(cgroup, first);
    const before = slot.written.get(path);
    if (before === value) continue;
    const raising = before !== undefined && Number(value) > Number(before);
    const files = swap === undefined ? [first] : raising ? [swap, first] : [first, swap];
    for (const file of files) {
      try {
        writeAgainWhenInterrupted(join(cgroup, file), value, file === swap ? "r+" : "w");
      } catch (error) {
        // Without swap accounting the file does not exist, and swap is not limited.
        if (file !== swap || (error as NodeJS.ErrnoException | null)?.code !== "ENOENT") {
          throw error;
        }
      }
    }
    slot.written.set(path, value);
  }
}

/** How many times a limit is written before an interrupted write is given up. */
const MAX_INTERRUPTED_WRITES = 100;

/**
 * Writes `value` to the limit file at `path`, again while the write fails
 * with EINTR. Cgroup v1 gives up a memory limit's write whenever a signal is
 * pending (the kernel's `mem_cgroup_resize_max`), and a host under a
 * sampling profiler (SIGPROF, every millisecond) or with signal handlers of
 * its own gets many: measured under Deno's `--prof` at a 20-50 µs
 * interval, 12 to 18 of 100 calls failed. Node's libuv writes again by
 * itself; Deno does not. A write of the same value twice is harmless.
 */
function writeAgainWhenInterrupted(path: string, value: string, flag: "r+" | "w"): void {
  for (let tries = 1;; tries++) {
    try {
      writeFileSync(path, value, { flag });
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException | null)?.code;
      if (code !== "EINTR" || tries >= MAX_INTERRUPTED_WRITES) throw error;
    }
  }
}

/** Where each limit's cgroup counts refusals and kills: the file and the key of its count. */
function eventsOf({ limit, version }: HeldCgroup): [file: string, key: string] {
  return limit === "processes"
    ? ["pids.events", "max"]
    : version === 2
    ? ["memory.events", "oom_kill"]
    : ["memory.oom_control", "oom_kill"];
}

/**
 * The refusal and kill counts of each cgroup (0 where the file or the count
 * is missing). Throws when a file exists but cannot be read.
 */
function eventCounts(cgroups: readonly HeldCgroup[]): number[] {
  return cgroups.map((held) => {
    const [file, key] = eventsOf(held);
    let text: string;
    try {
      text = readKernelFile(join(held.cgroup, file));
    } catch (error) {
      if ((error as NodeJS.ErrnoException | null)?.code === "ENOENT") return 0;
      throw error;
    }
    return Number(new RegExp(`^${key} (\\d+)$`, "m").exec(text)?.[1] ?? 0);
  });
}

/** How long the processes killed in a command's cgroups get to be gone before they count as survivors. */
const EMPTY_WAIT_MS = 500;

/** What a command's cgroups know of the slot they belong to. */
export interface SlotUse {
  /** The refusal and kill counts when the command got them. */
  counts: readonly number[];
  /** Gives them back, emptied, with their counts then. */
  release: (counts: readonly number[]) => void;
  /** Writes another command's limits to them. */
  write: (limits: ResourceLimits) => void;
}

/** One command's cgroups. */
export class CommandCgroup {
  readonly #cgroups: readonly HeldCgroup[];
  readonly #kill: (pid: number) => void;
  readonly #slot: SlotUse;

  /**
   * `slot`: the counts when the command got the cgroups (their earlier
   * commands' hits, the baseline for {@linkcode hit}), how to give them back
   * emptied, and how to write another command's limits.
   */
  constructor(cgroups: readonly HeldCgroup[], kill: (pid: number) => void, slot: SlotUse) {
    this.#cgroups = cgroups;
    this.#kill = kill;
    this.#slot = slot;
  }

  /**
   * Writes the limits of another command, which takes these cgroups over
   * from a process started ahead that joined them; throws when they cannot be written.
   */
  setLimits(limits: ResourceLimits): void {
    this.#slot.write(limits);
  }

  /** The `cgroup.procs` files the command's launcher writes its pid to. */
  get procsFiles(): string[] {
    return [...new Set(this.#cgroups.map(({ cgroup }) => join(cgroup, "cgroup.procs")))];
  }

  /**
   * Once the command has ended and its sweep is done: what the cgroup says
   * was hit, and the processes still in it (which left the session and
   * dropped the marker, or whose census judged them gone: a zombie leader
   * whose other threads run), killed. Every process the cgroups list gets
   * SIGKILL, whatever its state (a zombie leader's tgid takes its whole
   * thread group down); the live ones count as killed, but those in `swept`
   * (the sweep killed and counted them, and they may not have ended yet).
   * Only cgroups that
   * still exist and list nothing wait for the next command; others are
   * never used again.
   */
  async close(swept: ReadonlySet<number> = new Set()): Promise<
    {
      hit: ResourceLimitHit | undefined;
      killed: number;
      survivors: number[];
      censusFailed?: string;
    }
  > {
    let hit: ResourceLimitHit | undefined;
    const killed = new Set<number>();
    let survivors: number[] = [];
    let counts: readonly number[] = [];
    let emptied = false;
    try {
      counts = eventCounts(this.#cgroups);
      hit = this.#hitSince(counts);
      const deadline = performance.now() + EMPTY_WAIT_MS;
      let pause = 5;
      for (;;) {
        const listed = this.#listed();
        // A process on its way out (inside exit()) is still listed: killed, not
        // counted; so is one the sweep before killed (it counted it).
        for (const pid of listed) {
          if (!killed.has(pid) && !swept.has(pid) && isLive(pid)) killed.add(pid);
          this.#kill(pid);
        }
        emptied = listed.length === 0;
        if (emptied || performance.now() >= deadline) {
          survivors = listed.filter(isLive);
          break;
        }
        await new Promise((done) => setTimeout(done, pause));
        pause = Math.min(pause * 2, 50);
      }
      // What was killed may have been counted meanwhile: not the next command's.
      if (killed.size > 0) counts = eventCounts(this.#cgroups);
    } catch (error) {
      return {
        hit,
        killed: killed.size,
        survivors,
        censusFailed: `cannot read the command's cgroup (${messageOf(error)})`,
      };
    }
    // Removed by someone else (a cleanup script, systemd): made again for the next command.
    const whole = this.#cgroups.every(({ cgroup }) => existsSync(cgroup));
    if (emptied && whole) this.#slot.release(counts);
    return { hit, killed: [...killed].filter((pid) => !survivors.includes(pid)).length, survivors };
  }

  /** Every process the cgroups list, in whatever state. */
  #listed(): number[] {
    const listed = new Set<number>();
    for (const { cgroup } of this.#cgroups) for (const pid of procsOf(cgroup)) listed.add(pid);
    return [...listed];
  }

  /**
   * The limit the cgroup counted a refusal or a kill for since the command
   * got it, if any. Throws when a count cannot be read.
   */
  hit(): ResourceLimitHit | undefined {
    return this.#hitSince(eventCounts(this.#cgroups));
  }

  #hitSince(counts: readonly number[]): ResourceLimitHit | undefined {
    for (const [index, { limit }] of this.#cgroups.entries()) {
      if ((counts[index] ?? 0) > (this.#slot.counts[index] ?? 0)) {
        return {
          limit: limit === "processes" ? "processes" : "memory",
          evidence: "cgroup",
          certain: true,
        };
      }
    }
    return undefined;
  }
}
