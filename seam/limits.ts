/**
 * Per-command resource limits. `processes` and `memoryBytes` hold for the
 * command's processes together where this process can make cgroups (a
 * delegated cgroup v2, or writable cgroup v1 `pids`/`memory` hierarchies);
 * otherwise they, and always `cpuSeconds` and `fileSizeBytes`, apply to every
 * process of the command on its own (Linux rlimits). The result's `limits`
 * says which mechanism applied. `null` lifts a limit an executor would apply
 * by default.
 *
 * | field | cgroup | rlimit | when it is hit |
 * |---|---|---|---|
 * | `processes` | `pids.max` (threads count too) | `RLIMIT_NPROC` (every process of the user; not for root) | `fork` fails (EAGAIN) |
 * | `memoryBytes` | `memory.max` (v1: `memory.limit_in_bytes`, and `memsw` with swap accounting) | `RLIMIT_DATA` (private writable memory of one process, rounded up to KiB) | cgroup: the kernel kills a process (OOM); rlimit: allocations fail (ENOMEM) |
 * | `cpuSeconds` | | `RLIMIT_CPU` | SIGXCPU at the limit, SIGKILL a second later |
 * | `fileSizeBytes` | | `RLIMIT_FSIZE` | SIGXFSZ on a write past it (EFBIG if ignored); rounded up to KiB |
 *
 * @example
 * ```ts
 * import type { ResourceLimits } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const limits: ResourceLimits = { cpuSeconds: 60, fileSizeBytes: 1024 ** 3, processes: null };
 * // `null` lifts a limit the executor would apply by default.
 * assert.equal(limits.processes, null);
 * ```
 */
export interface ResourceLimits {
  /** Processes (and threads) of the command (`pids.max`), else of the user (`RLIMIT_NPROC`). */
  processes?: number | null;
  /** Memory of the command in bytes (`memory.max`), else private writable memory of one process (`RLIMIT_DATA`). */
  memoryBytes?: number | null;
  /** CPU time of one process, in seconds (`RLIMIT_CPU`). */
  cpuSeconds?: number | null;
  /** Size of one file written, in bytes (`RLIMIT_FSIZE`). */
  fileSizeBytes?: number | null;
}

/**
 * Which resource limit a command ran into.
 *
 * @example
 * ```ts
 * import type { ResourceLimitName } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const name: ResourceLimitName = "fileSize";
 * assert.equal(name, "fileSize");
 * ```
 */
export type ResourceLimitName = "processes" | "memory" | "cpu" | "fileSize";

/**
 * A limit a command ran into, and how that is known. `certain` is true only
 * when the command's cgroup counted it (`pids.events` max, `memory.events`
 * oom_kill; v1 `memory.oom_control` oom_kill) or the shell itself was ended
 * by the limit's own signal (SIGXCPU, SIGXFSZ); a message in stderr (bash's "File size limit exceeded" for a
 * child, "fork: Resource temporarily unavailable", "Cannot allocate memory")
 * or an exit status of 152 or 153 (128 + SIGXCPU or SIGXFSZ, as a shell or
 * bubblewrap reports a child those signals ended) is a heuristic, since a
 * command may print the same words or exit with the same status.
 *
 * @example
 * ```ts
 * import type { ResourceLimitHit } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const hit: ResourceLimitHit = { limit: "cpu", evidence: "signal", certain: true };
 * assert.equal(hit.certain, true);
 * ```
 */
export interface ResourceLimitHit {
  /** The limit. */
  limit: ResourceLimitName;
  /**
   * `cgroup`: the command's cgroup counted a refused fork or an out-of-memory
   * kill; `signal`: the shell died of the limit's signal; `stderr`: a message
   * said so; `exit status`: 152 or 153.
   */
  evidence: "cgroup" | "signal" | "stderr" | "exit status";
  /** True only for `cgroup` and `signal` evidence. */
  certain: boolean;
}

/**
 * How a limit was applied: a per-process rlimit, or a cgroup of the command
 * (v2, or v1).
 *
 * @example
 * ```ts
 * import type { ResourceLimitMechanism } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const mechanism: ResourceLimitMechanism = "cgroup v1";
 * assert.equal(mechanism.startsWith("cgroup"), true);
 * ```
 */
export type ResourceLimitMechanism = "rlimit" | "cgroup v2" | "cgroup v1";

/**
 * The limits that applied to one command, how, and what they could not
 * enforce on this machine.
 *
 * @example
 * ```ts
 * import type { AppliedResourceLimits } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * const applied: AppliedResourceLimits = {
 *   limits: { processes: 4096, cpuSeconds: 60 },
 *   mechanism: "cgroup v2",
 *   mechanisms: { processes: "cgroup v2", cpuSeconds: "rlimit" },
 *   gaps: ["cpuSeconds: applies to each process on its own (RLIMIT_CPU)"],
 * };
 * assert.equal(applied.mechanisms.processes, "cgroup v2");
 * ```
 */
export interface AppliedResourceLimits {
  /** The limits in effect (only those set). */
  limits: ResourceLimits;
  /**
   * A cgroup's version when any limit is held by one, else `rlimit`
   * (per-process rlimits set before bash starts).
   */
  mechanism: ResourceLimitMechanism;
  /** How each limit in {@linkcode AppliedResourceLimits.limits} was applied. */
  mechanisms: { [Name in keyof ResourceLimits]?: ResourceLimitMechanism };
  /** What was not enforced, in words. */
  gaps: string[];
}
