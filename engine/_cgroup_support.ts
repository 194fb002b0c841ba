/**
 * Where this process may make cgroups for resource limits: cgroup v2 with
 * the `pids`/`memory` controllers delegated, else writable cgroup v1
 * `pids`/`memory` hierarchies; and which of a command's limits a cgroup can
 * hold.
 *
 * @module
 */
import { mkdirSync, readFileSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { hostPlatform } from "../runtime/mod.ts";
import type { ResourceLimits } from "../seam/mod.ts";
import { messageOf } from "../seam/message.ts";

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
export const CONTROLLER: Record<CgroupLimit, string> = { processes: "pids", memoryBytes: "memory" };

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
 * the executor's config turned them off (`useCgroups: false`) or the
 * operating system `os` has none (only Linux has).
 */
export function cgroupSupportFor(
  useCgroups: boolean,
  limits: ResourceLimits,
  os: string = hostPlatform.os,
): CgroupSupport {
  const wanted = typeof limits.processes === "number" || typeof limits.memoryBytes === "number";
  if (useCgroups && wanted && os !== "linux") {
    const unavailable = `there are no cgroups on ${os === "darwin" ? "macOS" : os}`;
    return { processes: { unavailable }, memoryBytes: { unavailable } };
  }
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
