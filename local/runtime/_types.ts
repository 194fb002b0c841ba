/** How a child is put into a new session and process group of its own. */
export type SessionStrategy =
  /** The program is already `setsid` (util-linux), which execs without forking. */
  | "setsid-binary"
  /** The runtime's own `detached` option (setsid in a pre-exec hook; forks). */
  | "detached";

/** One process to spawn. The environment is complete: nothing is inherited. */
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

/** How a child ended. */
export interface ExitStatus {
  /** Exit code, or null when a signal ended it. */
  code: number | null;
  /** Signal name such as `SIGKILL`, or null. */
  signal: string | null;
}

/** A spawned child, as the runtime hands it over. */
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
}

/** The only runtime-specific operations shellseam needs. */
export interface Runtime {
  /** Which runtime this is. */
  readonly name: "deno" | "node";
  /** Spawns a child; rejects when the program cannot be started. */
  spawn(request: SpawnRequest): Promise<SpawnedChild>;
  /**
   * Sends a signal to a pid (negative: a process group); signal `0` only
   * probes whether the target exists (zombies included). Returns false when
   * there is no such process (ESRCH); throws for anything else.
   */
  kill(pid: number, signal: "SIGTERM" | "SIGKILL" | 0): boolean;
}
