import { existsSync, readdirSync } from "node:fs";
import { hostPlatform } from "../runtime/mod.ts";
import { readKernelFile } from "./_kernel_file.ts";

const isLinux = hostPlatform.proc;

/** The kernel's PF_EXITING task flag: set when do_exit() starts, before open files are closed. */
const PF_EXITING = 0x4;

/**
 * The session of the process a `/proc/<pid>/stat` line describes, or null
 * when that process no longer counts as live: a zombie, a dead task, or one
 * already inside exit(). A process that has closed its pipes on the way out
 * is still "R" or "D" for a moment; its PF_EXITING flag says it is leaving.
 */
export function liveSession(stat: string): number | null {
  const fields = statFields(stat);
  const state = fields[0];
  const flags = Number(fields[6]);
  if (state === undefined || state === "Z" || state === "X" || state === "x") return null;
  if (!Number.isInteger(flags) || (flags & PF_EXITING) !== 0) return null;
  const session = Number(fields[3]);
  return Number.isInteger(session) ? session : null;
}

/**
 * The fields of a `/proc/<pid>/stat` line after the parenthesised command
 * name, up to the flags: state ppid pgrp session tty_nr tpgid flags.
 */
function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ", 7);
}

/** Which pids a census reads: those a listing of /proc gives (`among` admits), or a range by number. */
type Among = ((pid: number) => boolean) | { first: number; last: number };

/**
 * The processes that pass `test`: from a listing of /proc (those `among`
 * admits), or the pids of a range read by their numbers (cheaper for a few).
 * A thread's id reads like a process there, though /proc does not list it:
 * only thread group leaders count. Throws when /proc cannot be read.
 */
function censusOf(test: (pid: number) => boolean, among?: Among): number[] {
  if (!isLinux) throw new Error(`there is no /proc on ${hostPlatform.os}`);
  const found: number[] = [];
  if (among !== undefined && typeof among !== "function") {
    for (let pid = among.first; pid <= among.last; pid++) {
      if (test(pid) && isThreadGroupLeader(pid)) found.push(pid);
    }
    return found;
  }
  for (const name of readdirSync("/proc")) {
    const first = name.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    const pid = Number(name);
    if ((among === undefined || among(pid)) && test(pid)) found.push(pid);
  }
  return found;
}

/** Whether `pid` is live and in session `sid`. */
function inSession(pid: number, sid: number): boolean {
  return liveProcessSession(pid) === sid;
}

/**
 * The session of process `pid` while any of its threads is live, or null
 * once none is (or it is gone). A leader that ended alone (`SYS_exit` from
 * its main thread) is a zombie, or inside exit(), while its other threads
 * run on: its process is alive, and `kill(pid, SIGKILL)` ends them all. Only
 * such a leader costs a listing of its `task/` folder. Throws when /proc
 * cannot be read.
 */
export function liveProcessSession(pid: number): number | null {
  const stat = readProcFile(pid, "stat");
  if (stat === null) return null;
  const session = liveSession(stat);
  if (session !== null) return session;
  const thread = liveThread(pid);
  return thread === null ? null : liveSession(thread.stat);
}

/**
 * A live thread of process `pid` other than its leader (whose stat line is
 * not live), with its stat line; null when there is none or the process is
 * gone. Throws for a failed read other than an ended process or thread.
 */
function liveThread(pid: number): { tid: number; stat: string } | null {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch (error) {
    if (gone(error)) return null;
    throw error;
  }
  for (const name of tids) {
    const tid = Number(name);
    if (tid === pid) continue;
    const stat = readProcFile(pid, `task/${name}/stat`);
    if (stat !== null && liveSession(stat) !== null) return { tid, stat };
  }
  return null;
}

/**
 * The live members of each session of `sids` (those with none are left
 * out), by one census of /proc: each process is read once, however many
 * sessions are asked for. Throws like {@linkcode sessionMembers}.
 */
export function membersOfSessions(sids: ReadonlySet<number>): Map<number, number[]> {
  const found = new Map<number, number[]>();
  censusOf((pid) => {
    const sid = liveProcessSession(pid);
    if (sid === null || !sids.has(sid)) return false;
    found.set(sid, [...(found.get(sid) ?? []), pid]);
    return true;
  });
  return found;
}

/**
 * Live processes in session `sid`, found by a census of /proc. Processes
 * that left the process group (job control, setpgid) but kept the session
 * are found too. `among` limits which pids are read. Throws when the census
 * cannot be taken (no /proc, a refused permission, EMFILE); a process that
 * ends while it is read is skipped.
 */
export function sessionMembers(sid: number, among?: (pid: number) => boolean): number[] {
  return censusOf((pid) => inSession(pid, sid), among);
}

/**
 * Live processes of session `sid` among the pids `first` to `last`, each
 * read by its number instead of listing /proc (cheaper for a few pids). A
 * thread's id reads like a process there, though /proc does not list it:
 * only thread group leaders count. Throws like {@linkcode sessionMembers}.
 */
export function sessionMembersBetween(sid: number, first: number, last: number): number[] {
  return censusOf((pid) => inSession(pid, sid), { first, last });
}

/**
 * `pids` without the members of process group `pgid` (a signal to the
 * group reaches those already); a pid whose group cannot be read is kept.
 */
export function outsideGroup(pids: readonly number[], pgid: number): number[] {
  return pids.filter((pid) => {
    let stat: string | null;
    try {
      stat = readProcFile(pid, "stat");
    } catch {
      return true;
    }
    return stat === null || statFields(stat)[2] !== String(pgid);
  });
}

/** `/proc/<pid>/<file>`, or null when the process has ended; throws for anything else. */
function readProcFile(pid: number, file: string): string | null {
  // Most pids read by number are gone: a failed read would build an error for each.
  if (!existsSync(`/proc/${pid}`)) return null;
  try {
    return readKernelFile(`/proc/${pid}/${file}`);
  } catch (error) {
    if (gone(error)) return null;
    throw error;
  }
}

/**
 * Live processes whose environment holds exactly the entry `entry` (for
 * example `SHELLSEAM_WATCHDOG=<marker>`), wherever they are: another session,
 * a pid namespace. A zombie's environment reads empty, so it is not found,
 * unless it is a leader that ended alone: then a live thread's is read.
 * `among` limits which pids are read. Throws like {@linkcode sessionMembers};
 * processes of other users, whose environment this process may not read, are
 * skipped.
 */
export function processesWithEnv(entry: string, among?: (pid: number) => boolean): number[] {
  const needle = `\0${entry}\0`;
  return censusOf((pid) => carries(pid, needle), among);
}

/**
 * Like {@linkcode processesWithEnv} among the pids `first` to `last`, each
 * read by its number instead of listing /proc (cheaper for a few pids); a
 * thread's id, which reads like its process there, is not counted.
 */
export function processesWithEnvBetween(entry: string, first: number, last: number): number[] {
  const needle = `\0${entry}\0`;
  return censusOf((pid) => carries(pid, needle), { first, last });
}

/** The kernel's PF_KTHREAD task flag: a kernel thread, whose environment is always empty. */
const PF_KTHREAD = 0x200000;

/** How long a process in the middle of an exec may show an empty environment before it counts as unmarked. */
const EXEC_WAIT_MS = 5;

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Whether the environment of `pid` holds `needle` (`\0NAME=value\0`); false when it has ended. */
function carries(pid: number, needle: string): boolean {
  return environOf(pid)?.includes(needle) ?? false;
}

/**
 * The environment of `pid` with a NUL in front (`\0NAME=value\0...`), or
 * null when it has ended, reads empty or may not be read. A process in the
 * middle of an exec reads as an empty environment until the new program's
 * is set up: it is read again, briefly. A leader that ended alone has none
 * to show (a zombie's reads fail): a live thread's environment is read
 * instead.
 */
function environOf(pid: number): string | null {
  if (!existsSync(`/proc/${pid}`)) return null;
  const deadline = performance.now() + EXEC_WAIT_MS;
  for (;;) {
    const environ = readEnviron(`/proc/${pid}/environ`);
    if (environ === null) return null;
    if (environ !== "") return `\0${environ}`;
    const stat = readProcFile(pid, "stat");
    if (stat === null) return null;
    if (liveSession(stat) === null) {
      const thread = liveThread(pid);
      const own = thread === null ? "" : readEnviron(`/proc/${pid}/task/${thread.tid}/environ`);
      return own === null || own === "" ? null : `\0${own}`;
    }
    // A kernel thread's environment is always empty; a user process's only during an exec.
    const flags = Number(statFields(stat)[6]);
    if ((flags & PF_KTHREAD) !== 0 || performance.now() > deadline) return null;
    Atomics.wait(pause, 0, 0, 0.2);
  }
}

/**
 * The live processes carrying each environment entry of `entries` (those
 * none carries are left out), by one census of /proc: each environment is
 * read once, however many entries are asked for. Throws like
 * {@linkcode processesWithEnv}.
 */
export function processesWithEnvs(entries: ReadonlySet<string>): Map<string, number[]> {
  const found = new Map<string, number[]>();
  censusOf((pid) => {
    const environ = environOf(pid);
    if (environ === null) return false;
    let carried = false;
    for (const entry of entries) {
      if (!environ.includes(`\0${entry}\0`)) continue;
      found.set(entry, [...(found.get(entry) ?? []), pid]);
      carried = true;
    }
    return carried;
  });
  return found;
}

/**
 * The environment block at `path` (a process's or a thread's `environ`):
 * empty when the task has none to show (a kernel thread, an exec under way,
 * a zombie, an ended task), null when it belongs to a user whose environment
 * this process may not read. Throws for any other failed read.
 */
function readEnviron(path: string): string | null {
  try {
    return readKernelFile(path);
  } catch (error) {
    if (gone(error)) return "";
    if ((error as NodeJS.ErrnoException | null)?.code === "EACCES") return null;
    throw error;
  }
}

/** Whether `pid` is a process (its thread group's leader), not another thread of one. */
function isThreadGroupLeader(pid: number): boolean {
  const status = readProcFile(pid, "status");
  return status !== null && /^Tgid:\s*(\d+)$/m.exec(status)?.[1] === String(pid);
}

/** Whether a read of /proc/<pid> failed because the process has ended. */
function gone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === "ENOENT" || code === "ESRCH";
}

function readProcNumber(path: string, pattern: RegExp): number | null {
  try {
    const match = pattern.exec(readKernelFile(path));
    return match?.[1] === undefined ? null : Number(match[1]);
  } catch {
    return null;
  }
}

/** Up to this many pids handed out since a spawn are read one by one; more, and /proc is listed. */
const READ_ONE_BY_ONE = 32;

/** How many tasks (processes and threads, each taking a pid) the kernel has created since boot. */
export function forkCount(): number | null {
  return isLinux ? readProcNumber("/proc/stat", /\nprocesses (\d+)/) : null;
}

let pidMax: number | null | undefined;

/** Whether `pid` lies from `first` to `last` in a pid space that wraps around. */
export function inPidInterval(pid: number, first: number, last: number): boolean {
  return first <= last ? pid >= first && pid <= last : pid >= first || pid <= last;
}

/**
 * The last pid handed out, when every pid handed out since a spawn lies from
 * the spawned pid to it; undefined when so many tasks were created since
 * (`forksAtSpawn`: {@linkcode forkCount} just after the spawn) that pids may
 * have wrapped past it, or a counter cannot be read.
 */
function lastPidSinceSpawn(forksAtSpawn: number | null): number | undefined {
  pidMax ??= readProcNumber("/proc/sys/kernel/pid_max", /(\d+)/);
  const lastPid = readProcNumber("/proc/sys/kernel/ns_last_pid", /(\d+)/);
  const forks = forkCount();
  if (
    pidMax === null || lastPid === null || forks === null || forksAtSpawn === null ||
    forks - forksAtSpawn >= pidMax / 2
  ) {
    return undefined;
  }
  return lastPid;
}

/**
 * The pids handed out since a process was spawned as `sid` (every
 * descendant of it is younger), from `sid` to the last pid handed out;
 * undefined (read every process) when so many tasks were created since that
 * pids may have wrapped past `sid`, or a counter cannot be read.
 * `forksAtSpawn` is {@linkcode forkCount} taken just after the spawn.
 */
function pidsSinceSpawn(
  sid: number,
  forksAtSpawn: number | null,
): { first: number; last: number } | undefined {
  const last = lastPidSinceSpawn(forksAtSpawn);
  return last === undefined ? undefined : { first: sid, last };
}

/**
 * Which pids to read for the descendants of the process spawned as `sid`:
 * those handed out since (one by one when they are few, else from a listing
 * of /proc), or every process when that cannot be known.
 */
function sinceSpawn(sid: number, forksAtSpawn: number | null): Among | undefined {
  const range = pidsSinceSpawn(sid, forksAtSpawn);
  if (range === undefined) return undefined;
  if (range.first <= range.last && range.last - range.first < READ_ONE_BY_ONE) return range;
  return (pid) => inPidInterval(pid, range.first, range.last);
}

/**
 * Live members of session `sid` (its leader's pid), reading only the pids
 * handed out since the leader was spawned ({@linkcode forkCount} just after
 * it is `forksAtSpawn`).
 */
export function recentSessionMembers(sid: number, forksAtSpawn: number | null): number[] {
  return censusOf((pid) => inSession(pid, sid), sinceSpawn(sid, forksAtSpawn));
}

/**
 * The first look of a sweep after a command that ended by itself, in one
 * read of the pids handed out since its leader `sid` was spawned: the live
 * members of its session, and the live processes outside it that carry the
 * environment entry `entry` (its descendants that left the session). It is
 * {@linkcode recentSessionMembers} and {@linkcode recentProcessesWithEnv}
 * at once, with the pids since the spawn found once instead of twice.
 */
export function recentMembersAndMarked(
  sid: number,
  forksAtSpawn: number | null,
  entry: string,
): { members: number[]; marked: number[] } {
  const needle = `\0${entry}\0`;
  const members = new Set<number>();
  const found = censusOf((pid) => {
    if (!inSession(pid, sid)) return carries(pid, needle);
    members.add(pid);
    return true;
  }, sinceSpawn(sid, forksAtSpawn));
  return {
    members: found.filter((pid) => members.has(pid)),
    marked: found.filter((pid) => !members.has(pid)),
  };
}

/**
 * Live processes carrying the environment entry `entry` among the pids
 * handed out since the process `sid` was spawned (its descendants that left
 * its session are among them).
 */
export function recentProcessesWithEnv(
  entry: string,
  sid: number,
  forksAtSpawn: number | null,
): number[] {
  const needle = `\0${entry}\0`;
  return censusOf((pid) => carries(pid, needle), sinceSpawn(sid, forksAtSpawn));
}
