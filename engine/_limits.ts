/**
 * Resource limits of a command: checked and merged once, applied as rlimits
 * by a short bash script that runs before the command's own bash (and inside
 * a sandbox, so the sandbox's programs are not limited), and recognised in
 * how a command ended.
 *
 * @module
 */
import process from "node:process";
import {
  type AppliedResourceLimits,
  BashConfigError,
  type ResourceLimitHit,
  type ResourceLimits,
} from "../seam/mod.ts";
import { kindOf } from "../seam/checks.ts";
import type { PlatformFacts } from "../runtime/mod.ts";
import { BASH_FLAGS } from "./_env.ts";
import type { Launch, LaunchPlan } from "./_launch.ts";
import { type CgroupLimit, cgroupLimits, type CgroupSupport } from "./_cgroup_support.ts";

/** The fields of {@linkcode ResourceLimits}, in the order they are applied. */
const FIELDS = ["processes", "memoryBytes", "cpuSeconds", "fileSizeBytes"] as const;

/**
 * The `ulimit` flag of each field, how a value becomes its unit (KiB for
 * sizes), and its Linux `RLIMIT_*` number (the generic ones, which x86_64 and aarch64 use).
 */
const ULIMIT: Record<
  (typeof FIELDS)[number],
  { flag: string; unit: (value: number) => number; resource: number }
> = {
  processes: { flag: "-u", unit: (value) => value, resource: 6 },
  memoryBytes: { flag: "-d", unit: (value) => Math.ceil(value / 1024), resource: 2 },
  cpuSeconds: { flag: "-t", unit: (value) => value, resource: 0 },
  fileSizeBytes: { flag: "-f", unit: (value) => Math.ceil(value / 1024), resource: 1 },
};

/**
 * The gap of a memory limit on macOS, whose kernel accepts `RLIMIT_DATA` and
 * ignores it (and there is no cgroup to hold it): said once per executor.
 */
export const MACOS_MEMORY_GAP =
  "memoryBytes: not enforced on macOS (its kernel accepts RLIMIT_DATA and ignores it, and there are no cgroups)";

/**
 * What this platform cannot do for any command, to be said once per
 * executor: where there is no /proc, a process that left its command's
 * process group and cleared its environment cannot be found (there is no
 * session id to find it by, nor a cgroup or pid namespace to hold it). A
 * memory limit macOS does not enforce is not among them: each call that asks
 * for one is told (see `limitGaps`).
 */
export function platformGaps(platform: PlatformFacts): string[] {
  const gaps: string[] = [];
  if (!platform.proc) {
    gaps.push(
      `strays: a process that leaves its command's process group and clears its environment cannot be found on ${
        platform.os === "darwin" ? "macOS" : platform.os
      } (no /proc session id, cgroup or pid namespace), so it may outlive the command`,
    );
  }
  return gaps;
}

/** The limits a confined command gets unless the config or the call says otherwise. */
export const CONFINED_DEFAULT_LIMITS: Readonly<ResourceLimits> = Object.freeze({
  processes: 4096,
  memoryBytes: 8 * 1024 ** 3,
  fileSizeBytes: 16 * 1024 ** 3,
});

/**
 * Throws `BashConfigError` unless `value` is absent or an object of known
 * limit names to whole numbers >= 1 or null; names `field`.
 */
export function checkLimits(field: string, value: unknown): ResourceLimits | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new BashConfigError(
      `"${field}" must be an object such as { cpuSeconds: 60 }; got ${kindOf(value)}`,
    );
  }
  for (const [key, limit] of Object.entries(value)) {
    if (!(FIELDS as readonly string[]).includes(key)) {
      throw new BashConfigError(
        `"${field}" has no limit "${key}"; the known limits are ${
          FIELDS.map((name) => `"${name}"`).join(", ")
        }`,
      );
    }
    if (limit !== null && (!Number.isSafeInteger(limit) || (limit as number) < 1)) {
      throw new BashConfigError(
        `"${field}.${key}" must be a whole number >= 1, or null for no limit; got ${
          typeof limit === "number" ? String(limit) : kindOf(limit)
        }`,
      );
    }
  }
  return value as ResourceLimits;
}

/** `over` merged onto `base`; fields that end up null are dropped (no limit). */
export function mergeLimits(
  base: ResourceLimits | undefined,
  over: ResourceLimits | undefined,
): ResourceLimits {
  const merged: ResourceLimits = {};
  for (const field of FIELDS) {
    const value = over?.[field] !== undefined ? over[field] : base?.[field];
    if (typeof value === "number") merged[field] = value;
  }
  return merged;
}

/** True when `limits` sets anything. */
export function hasLimits(limits: ResourceLimits): boolean {
  return FIELDS.some((field) => limits[field] !== undefined);
}

const LIMITER_NAME = "shellseam-limits";

/**
 * How {@linkcode APPLY_LIMITS} says it could not join a cgroup (exit 125,
 * this at the start of its stderr): the command was not run.
 */
export const JOIN_FAILURE_PREFIX = "shellseam: could not move the command into the cgroup";

/**
 * The start of a bash script that applies {@linkcode limitArgs}: moves the
 * shell into each cgroup named (`cg <cgroup.procs file>`, refusing to run
 * the command when that fails; in a cgroup v1 hierarchy by writing 0 to
 * its `tasks` file, which moves the writing thread alone, all of this
 * single-threaded shell, without the lock on every process's cgroups that
 * waits for an RCU grace period, 5 to 20 ms), then sets each rlimit (`<flag> <soft>
 * <hard>`), soft first (a hard limit below the soft one in force is
 * refused), then hard: the same, except for CPU time, whose hard limit is a
 * second above the soft one so SIGXCPU comes before SIGKILL. A limit above
 * the hard one in force is refused by the kernel (EPERM), so the stricter
 * stays, for everyone but root outside a sandbox (with CAP_SYS_RESOURCE).
 * It shifts them and the `--` after them away; what execs next starts
 * inside the cgroups.
 */
export const APPLY_LIMITS: string =
  'while [ "$1" != -- ]; do if [ "$1" = cg ]; then t=${2%cgroup.procs}tasks; ' +
  '{ if [ -e "$t" ]; then echo 0 > "$t"; else echo $$ > "$2"; fi; } 2>/dev/null || ' +
  `{ echo "${JOIN_FAILURE_PREFIX} of $2, so it was not run" >&2; ` +
  "exit 125; }; shift 2; continue; fi; " +
  'ulimit -S "$1" "$2" 2>/dev/null; ulimit -H "$1" "$3" 2>/dev/null; shift 3; done; shift; ';

/** One rlimit to set: its Linux `RLIMIT_*` number, soft and hard values (sizes in bytes). */
export interface Rlimit {
  /** The `RLIMIT_*` number. */
  resource: number;
  /** The soft limit. */
  soft: number;
  /** The hard limit: the soft one, but a second above it for CPU time (SIGXCPU before SIGKILL). */
  hard: number;
}

/** The rlimits `limits` sets, in the order they are applied, in each field's own unit. */
function rlimitFields(
  limits: ResourceLimits,
): { field: (typeof FIELDS)[number]; soft: number; hard: number }[] {
  return FIELDS.flatMap((field) => {
    const value = limits[field];
    if (typeof value !== "number") return [];
    return [{ field, soft: value, hard: field === "cpuSeconds" ? value + 1 : value }];
  });
}

/** The rlimits `limits` sets, in the order {@linkcode APPLY_LIMITS} applies them. */
export function rlimitsToSet(limits: ResourceLimits): Rlimit[] {
  return rlimitFields(limits).map(({ field, soft, hard }) => ({
    resource: ULIMIT[field].resource,
    soft,
    hard,
  }));
}

/** The arguments of {@linkcode APPLY_LIMITS}: the cgroups, the rlimits, then `--`. */
export function limitArgs(limits: ResourceLimits, cgroups: readonly string[] = []): string[] {
  const entries: string[] = cgroups.flatMap((file) => ["cg", file]);
  for (const { field, soft, hard } of rlimitFields(limits)) {
    const { flag, unit } = ULIMIT[field];
    entries.push(flag, String(unit(soft)), String(unit(hard)));
  }
  return [...entries, "--"];
}

/**
 * `launch` run behind a short bash script (by `shell`, a bash; by default
 * the launch's own program) that applies the limits ({@linkcode APPLY_LIMITS})
 * and execs `launch`. It reads no rc file (`--norc --noprofile`, as a socket
 * stdin would otherwise make it read `~/.bashrc`), no `BASH_ENV` and imports
 * no function (`-p`).
 */
export function limitedLaunch(
  launch: Launch,
  limits: ResourceLimits,
  cgroups: readonly string[] = [],
  shell: string = launch.program,
): Launch {
  return {
    ...launch,
    program: shell,
    args: [
      ...BASH_FLAGS,
      "-p",
      "-c",
      `${APPLY_LIMITS}exec "$@"`,
      LIMITER_NAME,
      ...limitArgs(limits, cgroups),
      launch.program,
      ...launch.args,
    ],
  };
}

/**
 * The launch to spawn for `plan`: its own, behind {@linkcode limitedLaunch}
 * (by `bash`) when the plan does not apply the limits itself and there are
 * rlimits to set or cgroups (`cgroups`, their `cgroup.procs` files) to join.
 */
export function limitedPlan(
  plan: Pick<LaunchPlan, "launch" | "limitsApplied">,
  rlimits: ResourceLimits,
  cgroups: readonly string[],
  bash: string,
): Launch {
  if (plan.limitsApplied === true) return plan.launch;
  return hasLimits(rlimits) || cgroups.length > 0
    ? limitedLaunch(plan.launch, rlimits, cgroups, bash)
    : plan.launch;
}

/** `limits` without those a cgroup holds (they are not set as rlimits too). */
export function rlimitsOf(limits: ResourceLimits, held: readonly CgroupLimit[]): ResourceLimits {
  const rest: ResourceLimits = {};
  for (const field of FIELDS) {
    const value = limits[field];
    if (typeof value === "number" && !(held as readonly string[]).includes(field)) {
      rest[field] = value;
    }
  }
  return rest;
}

/**
 * What the limits that are set cannot enforce here, given those a cgroup
 * holds, for a command that runs as root (`root`; by default: this
 * process's user) or not, where the kernel enforces `RLIMIT_DATA`
 * (`enforcesDataLimit`; macOS's does not) or not.
 */
export function limitGaps(
  limits: ResourceLimits,
  confined: boolean,
  support: CgroupSupport,
  held: readonly CgroupLimit[],
  root: boolean = process.getuid?.() === 0,
  enforcesDataLimit: boolean = true,
): string[] {
  const gaps: string[] = [];
  const perProcess = FIELDS.filter((field) =>
    limits[field] !== undefined && !(held as readonly string[]).includes(field)
  );
  if (perProcess.length === 0) return gaps;
  gaps.push(
    `${
      perProcess.join(", ")
    }: apply to each process on its own, not to the command's processes together (rlimits)`,
  );
  for (const field of ["processes", "memoryBytes"] as const) {
    const found = support[field];
    if (limits[field] !== undefined && "unavailable" in found) {
      gaps.push(`${field}: no cgroup: ${found.unavailable}`);
    }
  }
  if (perProcess.includes("processes")) {
    gaps.push(
      root
        ? "processes: not enforced for root (the kernel exempts uid 0 from RLIMIT_NPROC)"
        : "processes: RLIMIT_NPROC counts every process of the user, not only this command's",
    );
  }
  if (perProcess.includes("memoryBytes")) {
    gaps.push(
      enforcesDataLimit
        ? "memory: RLIMIT_DATA bounds private writable memory, not shared memory or files"
        : MACOS_MEMORY_GAP,
    );
  }
  if (root && !confined) {
    gaps.push(
      "root with CAP_SYS_RESOURCE and no sandbox: a limit above one in force raises it, and the command can raise its own",
    );
  }
  return gaps;
}

/**
 * The facts of the limits applied to one command, or undefined when none
 * were: those a cgroup of `support` holds (see {@linkcode cgroupLimits}),
 * the rest as rlimits; `root` as for {@linkcode limitGaps}.
 */
export function appliedLimits(
  limits: ResourceLimits,
  confined: boolean,
  support: CgroupSupport,
  root: boolean = process.getuid?.() === 0,
  enforcesDataLimit: boolean = true,
): AppliedResourceLimits | undefined {
  if (!hasLimits(limits)) return undefined;
  const held = cgroupLimits(limits, support);
  const mechanisms: AppliedResourceLimits["mechanisms"] = {};
  let mechanism: AppliedResourceLimits["mechanism"] = "rlimit";
  for (const field of FIELDS) {
    if (limits[field] === undefined) continue;
    const found = support[field as CgroupLimit];
    mechanisms[field] = (held as readonly string[]).includes(field) && "version" in found
      ? `cgroup v${found.version}`
      : "rlimit";
    if (mechanisms[field] !== "rlimit") mechanism = mechanisms[field];
  }
  return {
    limits: { ...limits },
    mechanism,
    mechanisms,
    gaps: limitGaps(limits, confined, support, held, root, enforcesDataLimit),
  };
}

/**
 * Messages that say a limit was hit, and whether they count when the
 * command still exited 0: bash's own report of a child that died of SIGXCPU
 * or SIGXFSZ does; the words a failed fork or allocation prints count only
 * for a command that failed (a successful one may log them in passing).
 */
const STDERR_SIGNS: readonly {
  field: keyof ResourceLimits;
  limit: ResourceLimitHit["limit"];
  sign: RegExp;
  evenOnSuccess: boolean;
}[] = [
  { field: "cpuSeconds", limit: "cpu", sign: /CPU time limit exceeded/, evenOnSuccess: true },
  {
    field: "fileSizeBytes",
    limit: "fileSize",
    sign: /File size limit exceeded|File too large/,
    evenOnSuccess: true,
  },
  {
    field: "processes",
    limit: "processes",
    // EAGAIN, from fork, or from the execve after a switch to a user over the limit.
    sign: /Resource temporarily unavailable|Cannot fork|can't fork|EAGAIN/i,
    evenOnSuccess: false,
  },
  {
    field: "memoryBytes",
    limit: "memory",
    sign: /cannot allocate|out of memory|memory exhausted|MemoryError|bad_alloc|ENOMEM/i,
    evenOnSuccess: false,
  },
];

/** 128 + SIGXCPU and 128 + SIGXFSZ: how a shell (or bwrap) reports a child those signals ended. */
const EXIT_SIGNS: readonly [number, keyof ResourceLimits, ResourceLimitHit["limit"]][] = [
  [152, "cpuSeconds", "cpu"],
  [153, "fileSizeBytes", "fileSize"],
];

/**
 * The limit a command most likely ran into. The shell's own death by
 * SIGXCPU or SIGXFSZ is a fact; a message in stderr or an exit status of
 * 152 or 153 is a heuristic. Only limits that were set count.
 */
export function limitHit(
  limits: ResourceLimits,
  exit: { code: number | null; signal: string | null },
  stderrText: string,
): ResourceLimitHit | undefined {
  if (exit.signal === "SIGXCPU" && limits.cpuSeconds !== undefined) {
    return { limit: "cpu", evidence: "signal", certain: true };
  }
  if (exit.signal === "SIGXFSZ" && limits.fileSizeBytes !== undefined) {
    return { limit: "fileSize", evidence: "signal", certain: true };
  }
  const failed = exit.code !== 0;
  for (const { field, limit, sign, evenOnSuccess } of STDERR_SIGNS) {
    if (limits[field] !== undefined && (failed || evenOnSuccess) && sign.test(stderrText)) {
      return { limit, evidence: "stderr", certain: false };
    }
  }
  for (const [code, field, limit] of EXIT_SIGNS) {
    if (exit.code === code && limits[field] !== undefined) {
      return { limit, evidence: "exit status", certain: false };
    }
  }
  return undefined;
}
