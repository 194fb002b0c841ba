/**
 * The removal of cgroups: an executor folder whose owner is gone (swept by
 * a later executor), and a cgroup tree, after what is left in it is killed.
 *
 * @module
 */
import { readdirSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import { liveSession } from "./_census.ts";
import { readKernelFile } from "./_kernel_file.ts";

/** The start time (clock ticks after boot) of `pid`, or null when it is gone. */
function startTime(pid: number): string | null {
  try {
    const stat = readKernelFile(`/proc/${pid}/stat`);
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
export function procsOf(cgroup: string): number[] {
  try {
    return readKernelFile(join(cgroup, "cgroup.procs")).split("\n").filter((line) => line !== "")
      .map(Number);
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
export function isLive(pid: number): boolean {
  try {
    if (liveSession(readKernelFile(`/proc/${pid}/stat`)) !== null) return true;
    return readdirSync(`/proc/${pid}/task`).some((tid) => {
      try {
        return liveSession(readKernelFile(`/proc/${pid}/task/${tid}/stat`)) !== null;
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
export async function removeCgroup(cgroup: string): Promise<boolean> {
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
