import type { PlatformFacts } from "./_platform.ts";

/**
 * How a child is put into a new session and process group of its own.
 *
 * @example
 * ```ts
 * import type { SessionStrategy } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * const strategy: SessionStrategy = "setsid-binary";
 * assert.notEqual(strategy, "detached");
 * ```
 */
export type SessionStrategy =
  /** The program is already `setsid` (util-linux), which execs without forking. */
  | "setsid-binary"
  /** The runtime's own `detached` option (setsid in a pre-exec hook; forks). */
  | "detached";

/**
 * One process to spawn. The environment is complete: nothing is inherited.
 *
 * @example
 * ```ts
 * import type { SpawnRequest } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * const request: SpawnRequest = {
 *   program: "/usr/bin/bash",
 *   args: ["-c", "true"],
 *   cwd: "/",
 *   env: {},
 *   stdin: "null",
 *   session: "detached",
 * };
 * assert.equal(request.session, "detached");
 * ```
 */
export interface SpawnRequest {
  /** Absolute path of the program. */
  program: string;
  /** Arguments after the program name. */
  args: string[];
  /** Absolute working directory; it exists (the caller checked). */
  cwd: string;
  /** The child's whole environment. */
  env: Record<string, string>;
  /** `/dev/null`, or a pipe the caller writes to. */
  stdin: "null" | "piped";
  /** How the new session is made. */
  session: SessionStrategy;
}

/**
 * How a child ended.
 *
 * @example
 * ```ts
 * import type { ExitStatus } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * const status: ExitStatus = { code: null, signal: "SIGKILL" };
 * // Killed by a signal: no exit code.
 * assert.equal(status.code, null);
 * ```
 */
export interface ExitStatus {
  /** Exit code, or null when a signal ended it. */
  code: number | null;
  /** Signal name such as `SIGKILL`, or null. */
  signal: string | null;
}

/**
 * A spawned child, as the runtime hands it over.
 *
 * @example
 * ```ts
 * import { runtime, type SpawnedChild } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * const child: SpawnedChild = await runtime.spawn({
 *   program: "/bin/sh",
 *   args: ["-c", "echo hi"],
 *   cwd: "/",
 *   env: {},
 *   stdin: "null",
 *   session: "detached",
 * });
 * const text = await new Response(child.stdout).text();
 * await child.stderr.cancel();
 * assert.deepEqual(await child.exited, { code: 0, signal: null });
 * assert.equal(text, "hi\n");
 * ```
 */
export interface SpawnedChild {
  /** Pid of the child; with a new session it is also the pgid and sid. */
  pid: number;
  /** Raw stdout bytes. */
  stdout: ReadableStream<Uint8Array>;
  /** Raw stderr bytes. */
  stderr: ReadableStream<Uint8Array>;
  /** The stdin pipe when asked for, else null. */
  stdin: WritableStream<Uint8Array> | null;
  /** Resolves when the child has exited (its pipes may still be open). */
  exited: Promise<ExitStatus>;
  /**
   * Lets this process exit while the child runs: neither the child nor its
   * pipes keep the event loop alive any more (a read in progress still does).
   */
  unref(): void;
  /** Undoes {@linkcode SpawnedChild.unref}, to await the child's exit. */
  ref(): void;
}

/**
 * The only runtime-specific operations shellseam needs.
 *
 * @example
 * ```ts
 * import { runtime, type Runtime } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * const current: Runtime = runtime;
 * assert.equal(current.kill(2 ** 22 + 4321, 0), false);
 * assert.equal(current.deniedPermission(new Error("EPERM")), false);
 * ```
 */
export interface Runtime {
  /** Which runtime this is. */
  readonly name: "deno" | "node";
  /**
   * The session strategy `"auto"` prefers here (when util-linux `setsid` is
   * found): `"setsid-binary"` where a spawn without `detached` avoids a fork
   * (Deno's posix_spawn), `"detached"` where the runtime forks whatever the
   * options (Node), so the `setsid` exec would only add a program start.
   * Absent: `"setsid-binary"`.
   */
  readonly autoSession?: SessionStrategy;
  /**
   * The operating system's facts the engine acts on (see `PlatformFacts`);
   * absent: this process's. A test says "macOS" on Linux here.
   */
  readonly platform?: PlatformFacts;
  /** Spawns a child; rejects when the program cannot be started. */
  spawn(request: SpawnRequest): Promise<SpawnedChild>;
  /**
   * Sends a signal to a pid (negative: a process group); signal `0` only
   * probes whether the target exists (zombies included). Returns false when
   * there is no such process (ESRCH); throws for anything else.
   */
  kill(pid: number, signal: "SIGTERM" | "SIGKILL" | 0): boolean;
  /**
   * Whether `error` is the runtime refusing a permission (Deno's
   * `NotCapable`, Node's `ERR_ACCESS_DENIED` under its permission model),
   * as opposed to the operating system refusing the operation.
   */
  deniedPermission(error: unknown): boolean;
  /**
   * The entries of the directory `path`, as it lists them (a symlink among
   * them is not followed: it is no directory). Throws when it cannot be read.
   */
  readDirectory(path: string): DirectoryEntry[];
  /**
   * False when the runtime would refuse this process a write to `path`
   * (Deno without `--allow-write` for it; Node under its permission model
   * without `fs.write` for it); true otherwise.
   */
  mayWrite(path: string): boolean;
  /**
   * False when the runtime would refuse this process to run `program` (Deno
   * under an `--allow-run` that does not name it; Node under its permission
   * model without `child`); true otherwise. Absent: true.
   */
  mayRun?(program: string): boolean;
  /**
   * The permissions this process runs under, by name (Deno's `read`,
   * `write`, `net`, `env`, `sys`, `run`, `ffi`, `import`; Node's `fs.read`,
   * `fs.write`, `child`, `worker`, `wasi`, `addon`), each `granted`,
   * `prompt` or `denied` for the whole scope (a scope granted only for some
   * paths or programs is not `granted`); null when no permission model is in
   * effect (Node without `--permission`).
   */
  permissions(): Record<string, "granted" | "prompt" | "denied"> | null;
}

/**
 * One entry of a directory listing.
 *
 * @example
 * ```ts
 * import type { DirectoryEntry } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * const entry: DirectoryEntry = { name: ".git", isDirectory: true };
 * assert.equal(entry.isDirectory, true);
 * ```
 */
export interface DirectoryEntry {
  /** The entry's name in the directory. */
  name: string;
  /** True for a directory (never for a symlink to one). */
  isDirectory: boolean;
}
