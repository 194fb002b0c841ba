import { statSync } from "node:fs";
import process from "node:process";
import { tmpdir } from "node:os";
import { isAbsolute, resolve as resolvePath } from "node:path";
import { BashConfigError, type ResourceLimits } from "../seam/mod.ts";
import { messageOf } from "../seam/message.ts";
import {
  checkKnownKeys,
  describeValue,
  fitsTimer,
  positiveFinite,
  wholeNumber,
} from "../seam/checks.ts";
import { findSetsid } from "./_session.ts";
import { hostToolPath } from "./_host_tools.ts";
import { checkLimits } from "./_limits.ts";
import type { Runtime, SessionStrategy } from "../runtime/mod.ts";
import { platformOf, runtime } from "../runtime/mod.ts";

/**
 * Options of a {@linkcode LocalBashExecutor}; every field is optional.
 *
 * | field | default | meaning |
 * |---|---|---|
 * | `cwd` | the process's cwd | where commands run, and what relative workdirs resolve against |
 * | `timeoutMs` | 120000 | wall clock of a foreground run, from its start |
 * | `maxTimeoutMs` | 600000 | cap on any per-call `timeoutMs` |
 * | `maxOutputBytes` | 64000 | bytes kept in memory per stream (head + tail), at most 256 MiB |
 * | `headBytes` | `min(8000, floor(maxOutputBytes / 8))` | bytes of the head |
 * | `maxSpillBytes` | 64 MiB | cap of each spill file (0: no spill files) |
 * | `maxSpillTotalBytes` | 1 GiB | disk budget of the private directory: spill files plus the sandbox's scratch `TMPDIR` |
 * | `spillDir` | the OS temp directory | where the private directory (spill files, scratch) is made |
 * | `killGraceMs` | 3000 | SIGTERM to SIGKILL |
 * | `drainGraceMs` | 500 | how long pipes held by children may stay open after the shell exits before the children are stopped (the pipes are then read to their end) |
 * | `keepSpillFiles` | false | keep the spill directory at disposal |
 * | `limits` | none | resource limits of every command (`ResourceLimits`: processes, memory, CPU time, file size) |
 * | `runtime` | this process's | what spawns and signals processes (a test injects a recording one) |
 * | `useCgroups` | true | hold `processes` and `memoryBytes` in a cgroup per command where this process can make one; false: rlimits only |
 * | `sessionStrategy` | `"auto"` | `"setsid-binary"` (util-linux `setsid`, faster with a large heap under Deno), `"detached"` (the runtime's own), or `"auto"` (Deno, and a sandboxing executor: the first when found on PATH; a local executor on Node, which forks for every spawn: the second) |
 *
 * Durations must fit a timer: at most 2147483647 ms (about 24 days). `cwd`
 * must be an existing directory. An unknown key (a typo such as `timeout`)
 * is a `BashConfigError`, like a value of the wrong type.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import { LocalBashExecutor, type LocalBashExecutorConfig } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * const config: LocalBashExecutorConfig = { cwd: "/tmp", timeoutMs: 30_000, sessionStrategy: "detached" };
 * await using executor = new LocalBashExecutor(config);
 * assert.equal(executor.config.timeoutMs, 30_000);
 * assert.equal(executor.config.sessionStrategy, "detached");
 * ```
 */
export interface LocalBashExecutorConfig {
  /** Where commands run by default. */
  cwd?: string;
  /** Default wall-clock limit of a foreground run, in milliseconds. */
  timeoutMs?: number;
  /** The largest `timeoutMs` a call may ask for; larger ones are capped. */
  maxTimeoutMs?: number;
  /** Bytes of each stream kept in memory. */
  maxOutputBytes?: number;
  /** Bytes of the head of each stream (the rest of the budget is a rolling tail). */
  headBytes?: number;
  /** Cap of each spill file, in bytes; 0 turns spill files off. */
  maxSpillBytes?: number;
  /**
   * Disk budget of the executor's private directory, in bytes: its spill
   * files plus anything else there (the sandbox's scratch `TMPDIR`). Past it
   * the oldest spill files of settled commands are deleted first; a running
   * command's spill file never is, and when that is not enough, the new spill
   * stops early (`spillComplete: false`, `spillError` says why).
   */
  maxSpillTotalBytes?: number;
  /**
   * An existing directory in which the private directory is made (default:
   * the OS temp directory, often a RAM-backed tmpfs).
   */
  spillDir?: string;
  /** Time between SIGTERM and SIGKILL, in milliseconds. */
  killGraceMs?: number;
  /** How long pipes may stay open after the shell exits, in milliseconds. */
  drainGraceMs?: number;
  /** Keep the spill directory when the executor is disposed. */
  keepSpillFiles?: boolean;
  /** How each command gets a session of its own. */
  sessionStrategy?: "auto" | SessionStrategy;
  /** Resource limits of every command (a call's `limits` go over them). */
  limits?: ResourceLimits;
  /** What spawns and signals processes: by default the runtime this process runs on. */
  runtime?: Runtime;
  /**
   * Hold `processes` and `memoryBytes` in a cgroup per command where this
   * process can make one (default true); false: per-process rlimits only.
   */
  useCgroups?: boolean;
}

/**
 * A validated {@linkcode LocalBashExecutorConfig} with every default filled
 * in, the session strategy decided and `setsidPath` found.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor();
 * assert.equal(executor.config.maxOutputBytes, 64_000);
 * assert.ok(executor.config.sessionStrategy === "detached" || executor.config.setsidPath !== null);
 * ```
 */
export interface ResolvedLocalBashExecutorConfig {
  /** Absolute default working directory. */
  readonly cwd: string;
  /** Default wall-clock limit. */
  readonly timeoutMs: number;
  /** Cap on per-call timeouts. */
  readonly maxTimeoutMs: number;
  /** Bytes kept in memory per stream. */
  readonly maxOutputBytes: number;
  /** Bytes of the head. */
  readonly headBytes: number;
  /** Cap of each spill file. */
  readonly maxSpillBytes: number;
  /** Disk budget of the private directory. */
  readonly maxSpillTotalBytes: number;
  /** Absolute directory in which the private directory is made. */
  readonly spillDir: string;
  /** SIGTERM to SIGKILL. */
  readonly killGraceMs: number;
  /** Pipe drain grace after the shell exits. */
  readonly drainGraceMs: number;
  /** Keep spill files at disposal. */
  readonly keepSpillFiles: boolean;
  /** The strategy in use ("auto" decided). */
  readonly sessionStrategy: SessionStrategy;
  /** Absolute path of util-linux `setsid` when the strategy is `"setsid-binary"`, else null. */
  readonly setsidPath: string | null;
  /**
   * Where the host's own tools are looked up (see `hostToolPath`): the
   * folders of PATH that held one of them when the executor was made.
   */
  readonly toolPath: string;
  /** Resource limits of every command, as configured. */
  readonly limits: Readonly<ResourceLimits>;
  /** What spawns and signals processes. */
  readonly runtime: Runtime;
  /** Whether `processes` and `memoryBytes` go in a cgroup per command where one can be made. */
  readonly useCgroups: boolean;
}

/** The keys of a {@linkcode LocalBashExecutorConfig}. */
export const LOCAL_CONFIG_KEYS: readonly string[] = [
  "cwd",
  "timeoutMs",
  "maxTimeoutMs",
  "maxOutputBytes",
  "headBytes",
  "maxSpillBytes",
  "maxSpillTotalBytes",
  "spillDir",
  "killGraceMs",
  "drainGraceMs",
  "keepSpillFiles",
  "sessionStrategy",
  "limits",
  "runtime",
  "useCgroups",
];

/**
 * The largest memory budget of one stream (`maxOutputBytes`, `stdoutMaxBytes`):
 * 256 MiB. Each stream may hold that much, and a larger buffer may fail to
 * allocate at all.
 */
export const MAX_OUTPUT_BYTES: number = 256 * 1024 * 1024;

/** Throws unless `value` is a whole number of bytes from 1 to {@linkcode MAX_OUTPUT_BYTES}. */
export function outputBudget(field: string, value: unknown): number {
  const bytes = wholeNumber(field, value, 1);
  if (bytes > MAX_OUTPUT_BYTES) {
    throw new BashConfigError(
      `"${field}" must be at most ${MAX_OUTPUT_BYTES} bytes (256 MiB) of memory per stream; got ${bytes}; lower it (the spill file keeps the whole stream)`,
    );
  }
  return bytes;
}

/** Throws unless `cwd` is an existing directory that a path can name. */
function checkCwd(cwd: unknown): string {
  if (typeof cwd !== "string" || cwd === "") {
    throw new BashConfigError(`"cwd" must be a non-empty path; got ${describeValue(cwd)}`);
  }
  if (cwd.includes("\0")) {
    throw new BashConfigError(`"cwd" holds a NUL byte, which no path can carry; remove it`);
  }
  const absolute = resolvePath(cwd);
  let isDirectory = false;
  try {
    isDirectory = statSync(absolute).isDirectory();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") {
      throw new BashConfigError(
        `"cwd" "${absolute}" could not be checked: ${
          messageOf(error)
        }; pass a directory this process can read`,
        { cause: error },
      );
    }
  }
  if (!isDirectory) {
    throw new BashConfigError(
      `"cwd" "${absolute}" does not exist or is not a directory; pass an existing directory`,
    );
  }
  return absolute;
}

function nonNegative(field: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new BashConfigError(
      `"${field}" must be a finite number >= 0 of milliseconds; got ${describeValue(value)}`,
    );
  }
  return value;
}

/** The directory the private directory is made in: an existing absolute directory. */
function spillDirectory(dir: unknown): string {
  if (dir === undefined) return tmpdir();
  let isDirectory = false;
  try {
    isDirectory = typeof dir === "string" && isAbsolute(dir) && statSync(dir).isDirectory();
  } catch {
    // Reported below.
  }
  if (!isDirectory) {
    throw new BashConfigError(
      `"spillDir" must be the absolute path of an existing directory; got ${
        describeValue(dir)
      }; create it first, or omit it for the OS temp directory`,
    );
  }
  return resolvePath(dir as string);
}

/** Validates a config and fills its defaults; throws `BashConfigError` naming the field. */
export function resolveConfig(config: LocalBashExecutorConfig): ResolvedLocalBashExecutorConfig {
  if (config === null || typeof config !== "object") {
    throw new BashConfigError("The executor config must be an object; pass {} for the defaults");
  }
  checkKnownKeys("The executor config", config, LOCAL_CONFIG_KEYS);
  const cwd = checkCwd(config.cwd ?? process.cwd());
  const maxTimeoutMs = fitsTimer(
    "maxTimeoutMs",
    positiveFinite("maxTimeoutMs", config.maxTimeoutMs ?? 600_000),
  );
  const timeoutMs = positiveFinite("timeoutMs", config.timeoutMs ?? 120_000);
  if (timeoutMs > maxTimeoutMs) {
    throw new BashConfigError(
      `"timeoutMs" (${timeoutMs}) exceeds "maxTimeoutMs" (${maxTimeoutMs}); lower it or raise "maxTimeoutMs"`,
    );
  }
  const maxOutputBytes = outputBudget("maxOutputBytes", config.maxOutputBytes ?? 64_000);
  const headBytes = wholeNumber(
    "headBytes",
    config.headBytes ?? Math.min(8_000, Math.floor(maxOutputBytes / 8)),
    0,
  );
  if (headBytes > maxOutputBytes) {
    throw new BashConfigError(
      `"headBytes" (${headBytes}) exceeds "maxOutputBytes" (${maxOutputBytes}); lower it or raise "maxOutputBytes"`,
    );
  }
  const keepSpillFiles = config.keepSpillFiles ?? false;
  if (typeof keepSpillFiles !== "boolean") {
    throw new BashConfigError(
      `"keepSpillFiles" must be true or false; got ${describeValue(keepSpillFiles)}`,
    );
  }
  const useCgroups = config.useCgroups ?? true;
  if (typeof useCgroups !== "boolean") {
    throw new BashConfigError(
      `"useCgroups" must be true or false; got ${describeValue(useCgroups)}`,
    );
  }
  const strategy = config.sessionStrategy ?? "auto";
  if (strategy !== "auto" && strategy !== "setsid-binary" && strategy !== "detached") {
    throw new BashConfigError(
      `"sessionStrategy" must be "auto", "setsid-binary" or "detached"; got ${
        describeValue(strategy)
      }`,
    );
  }
  const chosenRuntime = checkRuntime(config.runtime ?? runtime);
  const { os } = platformOf(chosenRuntime);
  if (os === "win32") {
    throw new BashConfigError(
      "shellseam does not run on native Windows; run it under WSL2 (a Linux distribution, where it works as it is)",
    );
  }
  const wanted = strategy === "auto" ? chosenRuntime.autoSession ?? "setsid-binary" : strategy;
  const setsidPath = wanted === "detached" ? null : findSetsid();
  if (strategy === "setsid-binary" && setsidPath === null) {
    throw new BashConfigError(
      `"sessionStrategy" is "setsid-binary" but no util-linux "setsid" is on PATH; install util-linux or use "auto"`,
    );
  }
  return {
    cwd,
    timeoutMs,
    maxTimeoutMs,
    maxOutputBytes,
    headBytes,
    maxSpillBytes: wholeNumber("maxSpillBytes", config.maxSpillBytes ?? 64 * 1024 * 1024, 0),
    maxSpillTotalBytes: wholeNumber(
      "maxSpillTotalBytes",
      config.maxSpillTotalBytes ?? 1024 * 1024 * 1024,
      0,
    ),
    spillDir: spillDirectory(config.spillDir),
    killGraceMs: fitsTimer("killGraceMs", nonNegative("killGraceMs", config.killGraceMs ?? 3_000)),
    drainGraceMs: fitsTimer(
      "drainGraceMs",
      nonNegative("drainGraceMs", config.drainGraceMs ?? 500),
    ),
    keepSpillFiles,
    sessionStrategy: setsidPath === null ? "detached" : "setsid-binary",
    setsidPath,
    toolPath: hostToolPath(),
    limits: Object.freeze({ ...checkLimits("limits", config.limits) }),
    runtime: chosenRuntime,
    useCgroups,
  };
}

/** Throws unless `value` has a runtime's name, spawn, kill and deniedPermission. */
function checkRuntime(value: unknown): Runtime {
  const candidate = value as Partial<Runtime> | null;
  if (
    typeof candidate !== "object" || candidate === null ||
    (candidate.name !== "deno" && candidate.name !== "node") ||
    typeof candidate.spawn !== "function" || typeof candidate.kill !== "function" ||
    typeof candidate.deniedPermission !== "function"
  ) {
    throw new BashConfigError(
      `"runtime" must be a Runtime (name, spawn, kill, deniedPermission); got ${
        describeValue(value)
      }; omit it to use the runtime this process runs on`,
    );
  }
  return candidate as Runtime;
}
