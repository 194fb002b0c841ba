/**
 * Resource limits through a cgroup: where this process may make cgroups
 * (cgroup v2 with the `pids`/`memory` controllers delegated, else writable
 * cgroup v1 `pids`/`memory` hierarchies), one cgroup per command with its
 * limits, how a command's processes are put in it (its launcher writes its
 * own pid to `cgroup.procs` before it execs anything), what the cgroup says
 * was hit, and its removal.
 *
 * Layout: `<controller folder>/shellseam-exec-<pid>-<start>-<token>/<n>`, one
 * folder per executor (named after its owner, like the private folder, so a
 * later executor removes those of a host that is gone) with one cgroup per
 * command (`shellseam-unowned-<token>` when the owner could not be read: never swept).
 *
 * @module
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { BashSpawnError, type ResourceLimitHit, type ResourceLimits } from "../seam/mod.ts";
import { messageOf } from "../seam/_message.ts";
import { liveSession } from "./_census.ts";

/** The limits a cgroup can hold for a whole command. */
export type CgroupLimit = "processes" | "memoryBytes";

/** Where one controller's command cgroups are made, and which cgroup version it is. */
export interface CgroupController {
  version: 1 | 2;
  /** The cgroup folder under which this process may make cgroups. */
  dir: string;
}

/** What this machine offers this process: a controller per limit, or why not. */
export interface CgroupSupport {
  processes: CgroupController | { unavailable: string };
  memoryBytes: CgroupController | { unavailable: string };
}

/** The controller of each limit. */
const CONTROLLER: Record<CgroupLimit, string> = { processes: "pids", memoryBytes: "memory" };

interface Mount {
  root: string;
  point: string;
  version: 1 | 2;
  controllers: string[];
}

/** The cgroup mounts of a `/proc/self/mountinfo` text. */
function cgroupMounts(mountinfo: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of mountinfo.split("\n")) {
    const [left, right] = line.split(" - ");
    if (left === undefined || right === undefined) continue;
    const fields = left.split(" ");
    const [fstype, , superOptions = ""] = right.split(" ");
    const root = fields[3];
    const point = fields[4];
    if (root === undefined || point === undefined) continue;
    const unescape = (path: string): string =>
      path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
    if (fstype === "cgroup2") {
      mounts.push({ root: unescape(root), point: unescape(point), version: 2, controllers: [] });
    } else if (fstype === "cgroup") {
      const controllers = superOptions.split(",");
      mounts.push({ root: unescape(root), point: unescape(point), version: 1, controllers });
    }
  }
  return mounts;
}

/** `path` (this process's cgroup) as a folder under `mount`, or null when the mount does not show it. */
function folderOf(mount: Mount, path: string): string | null {
  let inside: string;
  if (mount.root === "/") inside = path;
  else if (path === mount.root || path.startsWith(`${mount.root}/`)) {
    inside = path.slice(mount.root.length);
  } else return null;
  const folder = join(mount.point, inside);
  return folder.length > 1 ? folder.replace(/\/+$/, "") : folder;
}

/**
 * The folders in which a command's `pids` and `memory` cgroups could be made,
 * from `/proc/self/cgroup` and `/proc/self/mountinfo` texts: cgroup v2 where
 * this process's cgroup hands the controller to its children
 * (`cgroup.subtree_control`, read by `read`), else the controller's cgroup
 * v1 hierarchy; or why neither exists. Whether the folders are writable is
 * not checked here.
 */
export function cgroupFolders(
  procCgroup: string,
  mountinfo: string,
  read: (path: string) => string,
): CgroupSupport {
  const mounts = cgroupMounts(mountinfo);
  const lines = procCgroup.split("\n").filter((line) => line !== "").map((line) => {
    const [id = "", controllers = "", ...path] = line.split(":");
    return { id, controllers: controllers.split(","), path: path.join(":") };
  });
  const support = {} as CgroupSupport;
  for (const limit of ["processes", "memoryBytes"] as const) {
    const controller = CONTROLLER[limit];
    let found: CgroupController | { unavailable: string } = {
      unavailable:
        `no cgroup v2 delegates "${controller}" to this process and no cgroup v1 "${controller}" hierarchy is mounted`,
    };
    const unified = lines.find((line) => line.id === "0" && line.controllers[0] === "");
    const v2 = mounts.find((mount) => mount.version === 2);
    const v2Dir = unified !== undefined && v2 !== undefined ? folderOf(v2, unified.path) : null;
    let delegated = false;
    if (v2Dir !== null) {
      try {
        delegated = read(join(v2Dir, "cgroup.subtree_control")).trim().split(/\s+/).includes(
          controller,
        );
      } catch {
        // Not readable: not delegated to this process.
      }
    }
    if (v2Dir !== null && delegated) {
      found = { version: 2, dir: v2Dir };
    } else {
      const line = lines.find((line) => line.controllers.includes(controller));
      const v1 = mounts.find((mount) =>
        mount.version === 1 && mount.controllers.includes(controller)
      );
      const dir = line !== undefined && v1 !== undefined ? folderOf(v1, line.path) : null;
      if (dir !== null) found = { version: 1, dir };
    }
    support[limit] = found;
  }
  return support;
}

let machine: CgroupSupport | undefined;

/**
 * What this machine offers this process, found once: {@linkcode cgroupFolders}
 * from `/proc/self`, each folder checked by making and removing a cgroup in
 * it. A refusal (no /proc: Deno refuses `/proc` and `/sys` without
 * `--allow-all`; a read-only or foreign cgroup) is the reason a limit falls back to rlimits.
 */
export function cgroupSupport(): CgroupSupport {
  if (machine !== undefined) return machine;
  let support: CgroupSupport;
  try {
    support = cgroupFolders(
      readFileSync("/proc/self/cgroup", "latin1"),
      readFileSync("/proc/self/mountinfo", "latin1"),
      (path) => readFileSync(path, "latin1"),
    );
  } catch (error) {
    const unavailable = `this process could not read /proc/self (${messageOf(error)})`;
    machine = { processes: { unavailable }, memoryBytes: { unavailable } };
    return machine;
  }
  const probed = new Map<string, string | null>();
  for (const limit of ["processes", "memoryBytes"] as const) {
    const found = support[limit];
    if ("unavailable" in found) continue;
    if (!probed.has(found.dir)) {
      const probe = join(found.dir, `shellseam-probe-${process.pid}`);
      try {
        mkdirSync(probe);
        rmdirSync(probe);
        probed.set(found.dir, null);
      } catch (error) {
        probed.set(found.dir, messageOf(error));
      }
    }
    const refused = probed.get(found.dir);
    if (refused !== null && refused !== undefined) {
      support[limit] = {
        unavailable: `cannot make a cgroup in "${found.dir}" (${refused})`,
      };
    }
  }
  machine = support;
  return support;
}

/**
 * What cgroups offer a command with `limits`: {@linkcode cgroupSupport},
 * looked for only when a processes or memory limit is set, or nothing when
 * the executor's config turned them off (`useCgroups: false`).
 */
export function cgroupSupportFor(useCgroups: boolean, limits: ResourceLimits): CgroupSupport {
  const wanted = typeof limits.processes === "number" || typeof limits.memoryBytes === "number";
  if (useCgroups && wanted) return cgroupSupport();
  const unavailable = useCgroups
    ? "no limit a cgroup holds is set"
    : "turned off (useCgroups: false)";
  return { processes: { unavailable }, memoryBytes: { unavailable } };
}

/** The limits of `limits` that a cgroup of `support` holds. */
export function cgroupLimits(limits: ResourceLimits, support: CgroupSupport): CgroupLimit[] {
  return (["processes", "memoryBytes"] as const).filter((limit) =>
    typeof limits[limit] === "number" && !("unavailable" in support[limit])
  );
}

/** The start time (clock ticks after boot) of `pid`, or null when it is gone. */
function startTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

const OWNER = /^shellseam-exec-(\d+)-(\d+)-[^/]+$/;

/**
 * Removes the executor folders in `dir` whose owner is gone (its pid is free
 * or names a process started at another time): kills what is left in their
 * cgroups first. Returns how many it removed.
 */
export async function sweepStaleCgroups(
  dir: string,
  kill: (pid: number) => void,
): Promise<number> {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const owner = OWNER.exec(name);
    if (owner === null || startTime(Number(owner[1])) === owner[2]) continue;
    if (await removeTree(join(dir, name), kill)) removed++;
  }
  return removed;
}

/**
 * The pids in a cgroup's `cgroup.procs` (none once the cgroup is gone).
 * Throws when it cannot be read: an unread list is not an empty one.
 */
function procsOf(cgroup: string): number[] {
  try {
    return readFileSync(join(cgroup, "cgroup.procs"), "latin1").split("\n").filter((line) =>
      line !== ""
    ).map(Number);
  } catch (error) {
    if ((error as NodeJS.ErrnoException | null)?.code === "ENOENT") return [];
    throw error;
  }
}

/**
 * Whether a process a cgroup lists is live: not gone nor inside exit(). A
 * zombie leader counts as live while another thread of it runs (a leader
 * that called exit() alone stays listed by its tgid, with its threads
 * running). Throws when that cannot be read.
 */
function isLive(pid: number): boolean {
  try {
    if (liveSession(readFileSync(`/proc/${pid}/stat`, "latin1")) !== null) return true;
    return readdirSync(`/proc/${pid}/task`).some((tid) => {
      try {
        return liveSession(readFileSync(`/proc/${pid}/task/${tid}/stat`, "latin1")) !== null;
      } catch {
        // The thread ended while it was read.
        return false;
      }
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | null)?.code;
    if (code === "ENOENT" || code === "ESRCH") return false;
    throw error;
  }
}

/** Kills what is in `folder`'s cgroups, removes them and it; false when something stayed. */
export async function removeTree(folder: string, kill: (pid: number) => void): Promise<boolean> {
  let entries: string[] = [];
  try {
    entries = readdirSync(folder, { withFileTypes: true }).filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return false;
  }
  let clean = true;
  for (const name of entries) {
    const cgroup = join(folder, name);
    try {
      for (const pid of procsOf(cgroup)) kill(pid);
    } catch {
      // Unread: nothing killed, so its removal below fails and says so.
    }
    clean = (await removeCgroup(cgroup)) && clean;
  }
  return (await removeCgroup(folder)) && clean;
}

/**
 * Removes a cgroup; while processes are still leaving it (EBUSY), tries
 * again for up to half a second. False when it stayed.
 */
async function removeCgroup(cgroup: string): Promise<boolean> {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      rmdirSync(cgroup);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException | null)?.code;
      if (code === "ENOENT") return true;
      if (code !== "EBUSY") return false;
    }
    // Killed processes leave the cgroup when their exit completes.
    await new Promise((done) => setTimeout(done, 10));
  }
  return false;
}

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
  readonly #kill: (pid: number) => void;
  readonly #idle: Slot[] = [];
  #slots = 0;

  /** `name`: the executor's folder name (`shellseam-exec-<owner>-<token>`). */
  constructor(support: CgroupSupport, name: string, kill: (pid: number) => void) {
    this.#support = support;
    this.#name = name;
    this.#kill = kill;
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
      // Made again when someone else removed it (empty once no slot is left in it).
      const made = this.#made.has(folder);
      if (!made || !existsSync(folder)) {
        if (!made) await sweepStaleCgroups(dir, this.#kill);
        mkdirSync(folder, { recursive: true });
        if (!made) {
          this.#made.add(folder);
          onNewFolder(folder);
        }
        if (version === 2) {
          // The command cgroups below it get the controllers (it holds no process itself).
          const enable = held.filter((other) => {
            const found = this.#support[other];
            return "version" in found && found.version === 2 && found.dir === dir;
          }).map((other) => `+${CONTROLLER[other]}`);
          writeFileSync(join(folder, "cgroup.subtree_control"), enable.join(" "));
        }
      }
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
        writeFileSync(join(cgroup, file), value, { flag: file === swap ? "r+" : "w" });
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
      text = readFileSync(join(held.cgroup, file), "latin1");
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
   * from a standby that joined them; throws when they cannot be written.
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
