/**
 * Per-command resource limits. Each applies to every process of the command
 * on its own (Linux rlimits): a value is the most one process may use. `null`
 * lifts a limit an executor would apply by default.
 *
 * | field | rlimit | when it is hit |
 * |---|---|---|
 * | `processes` | `RLIMIT_NPROC` | `fork` fails (EAGAIN); counts every process of the user |
 * | `memoryBytes` | `RLIMIT_DATA` | allocations fail (ENOMEM); private writable memory, rounded up to KiB |
 * | `cpuSeconds` | `RLIMIT_CPU` | SIGXCPU at the limit, SIGKILL a second later |
 * | `fileSizeBytes` | `RLIMIT_FSIZE` | SIGXFSZ on a write past it (EFBIG if ignored); rounded up to KiB |
 *
 * @example
 * ```ts
 * import type { ResourceLimits } from "@shellseam/bash/seam";
 *
 * const limits: ResourceLimits = { cpuSeconds: 60, fileSizeBytes: 1024 ** 3, processes: null };
 * console.log(limits.cpuSeconds);
 * ```
 */
export interface ResourceLimits {
  /** Processes of the user (`RLIMIT_NPROC`). */
  processes?: number | null;
  /** Private writable memory of one process, in bytes (`RLIMIT_DATA`). */
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
 *
 * const name: ResourceLimitName = "fileSize";
 * console.log(name);
 * ```
 */
export type ResourceLimitName = "processes" | "memory" | "cpu" | "fileSize";

/**
 * A limit a command ran into, and how that is known. `certain` is true only
 * when the shell itself was ended by the limit's own signal (SIGXCPU,
 * SIGXFSZ); a message in stderr (bash's "File size limit exceeded" for a
 * child, "fork: Resource temporarily unavailable", "Cannot allocate memory")
 * or an exit status of 152 or 153 (128 + SIGXCPU or SIGXFSZ, as a shell or
 * bubblewrap reports a child those signals ended) is a heuristic, since a
 * command may print the same words or exit with the same status.
 *
 * @example
 * ```ts
 * import type { ResourceLimitHit } from "@shellseam/bash/seam";
 *
 * const hit: ResourceLimitHit = { limit: "cpu", evidence: "signal", certain: true };
 * console.log(hit.limit);
 * ```
 */
export interface ResourceLimitHit {
  /** The limit. */
  limit: ResourceLimitName;
  /** `signal`: the shell died of the limit's signal; `stderr`: a message said so; `exit status`: 152 or 153. */
  evidence: "signal" | "stderr" | "exit status";
  /** True only for `signal` evidence. */
  certain: boolean;
}

/**
 * The limits that applied to one command, how, and what they could not
 * enforce on this machine.
 *
 * @example
 * ```ts
 * import type { AppliedResourceLimits } from "@shellseam/bash/seam";
 *
 * const applied: AppliedResourceLimits = {
 *   limits: { processes: 4096 },
 *   mechanism: "rlimit",
 *   gaps: ["processes: not enforced for root (the kernel exempts uid 0 from RLIMIT_NPROC)"],
 * };
 * console.log(applied.gaps.length);
 * ```
 */
export interface AppliedResourceLimits {
  /** The limits in effect (only those set). */
  limits: ResourceLimits;
  /** How they were applied: per-process rlimits set before bash starts. */
  mechanism: "rlimit";
  /** What was not enforced, in words. */
  gaps: string[];
}
