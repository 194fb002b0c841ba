import {
  type BashLiveOutputChunk,
  type BashOutputStream,
  BashSpawnError,
  type StrayReport,
} from "../seam/mod.ts";
import { messageOf } from "../seam/message.ts";
import type { OutputCollector } from "./_output.ts";
import { LiveTextDecoder } from "./_stream_text.ts";
import { GroupReaper } from "./_reaper.ts";
import { within } from "./_within.ts";
import type { ProcessControl } from "./_control.ts";
import type { ExitStatus, SpawnedChild } from "../runtime/mod.ts";

/** Why the executor ended a command ("lost": a remote executor lost its connection). */
export type KillCause = "timeout" | "idle" | "abort" | "kill" | "dispose" | "lost";

/**
 * How long the pipes may stay open with nothing arriving once the command's
 * processes were stopped, before the executor stops reading them.
 */
const PIPE_QUIET_MS = 1000;
/**
 * How often the wait for the pipes' end looks whether bytes came. One look
 * counts for at most this long however late it comes: a busy event loop
 * also holds the reads back, and must not make the pipes look quiet.
 */
const QUIET_LOOK_MS = 50;
/**
 * More bytes than this after the command's processes were stopped cannot be
 * what was left in the pipes (a pipe holds 1 MiB at most unless its writer
 * is privileged and asks for more): a process that nothing stopped writes them.
 */
const MAX_BYTES_AFTER_SWEEP = 64 * 1024 * 1024;

/**
 * Ends a command's processes and reports what was left: locally a
 * {@linkcode GroupReaper}; the remote executor passes one that asks the
 * remote side to do it.
 */
export interface Reaper {
  /** The program exited (and was reaped). */
  leaderExited(): void;
  /** SIGTERM now, SIGKILL after the grace period; idempotent. */
  terminate(): void;
  /** Once the program exited: kills what is left and reports it. */
  sweep(pipesOpen: boolean): Promise<StrayReport>;
  /** The processes the sweep killed, where it knows them (the cleanup after it counts none twice). */
  readonly killedPids?: ReadonlySet<number>;
  /** Stops any timer. */
  dispose(): void;
}

/** Who ends a command's processes: a {@linkcode GroupReaper} on this machine, or a given reaper. */
export type CommandReaping =
  | {
    control: ProcessControl;
    /**
     * The value of SHELLSEAM_WATCHDOG in the command's environment, by which
     * the sweep finds its processes outside its session; absent where none can be.
     */
    marker?: string;
    /** `forkCount()` just after the program was spawned, when that was before now (a process started ahead). */
    forksAtSpawn?: number | null;
  }
  | {
    /** Ends the processes elsewhere (the remote executor's asks its bootstrap). */
    reaper: Reaper;
  };

/** Everything a spawned child needs to be watched until it settles. */
export type CommandOptions = CommandReaping & CommandBase;

/** The options every command has, whoever reaps it. */
export interface CommandBase {
  child: SpawnedChild;
  stdout: OutputCollector;
  stderr: OutputCollector;
  killGraceMs: number;
  drainGraceMs: number;
  /** Bytes for stdin, written before it is closed (or left open). */
  stdin: Uint8Array | undefined;
  keepStdinOpen: boolean;
  timeoutMs?: number;
  idleTimeoutMs?: number;
  signal?: AbortSignal;
  /** Called with each piece of output, bytes and text, as it arrives (see `BashExecRequest.onOutput`). */
  onOutput?: (chunk: BashLiveOutputChunk) => void;
  /**
   * Called once the sweep is done (the command's cgroup: what is left in it
   * is killed and counted with the strays, and it is removed).
   */
  afterSweep?: (swept: ReadonlySet<number>) => Promise<StrayReport>;
  /** Whether the launch said its command started (see `LaunchOutcome.started`). */
  started?: boolean;
  /** What the sweep cannot find on this platform, for its report (`StrayReport.gaps`). */
  strayGaps?: readonly string[];
}

/** Resolves true when `promise` settles within `ms`, false otherwise. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return await within(promise.then(() => true), ms) ?? false;
}

/**
 * One spawned command from spawn to settlement: output pumps, the wall and
 * idle clocks, abort, kill, the drain grace after exit and the stray sweep.
 * Settled means the program exited, its pipes closed (or were given up on)
 * and nothing of its group or session is left.
 */
export class RunningCommand {
  readonly pid: number;
  readonly stdout: OutputCollector;
  readonly stderr: OutputCollector;
  /** The first reason the executor ended it, or null. */
  cause: KillCause | null = null;
  /** Set when the program exited. */
  exit: ExitStatus | null = null;
  strays: StrayReport = { killed: 0, survivors: [] };
  durationMs = 0;
  /** True once settled. */
  isSettled = false;
  /** What broke while settling (a bug, or output that could not be read), never a command's failure. */
  failure: unknown = undefined;
  /** Resolves when settled; never rejects. */
  readonly settled: Promise<void>;
  /** What the `onOutput` callback threw, after which it was not called again. */
  onOutputError: string | undefined = undefined;
  /** Whether the launch said its command started (see `LaunchOutcome.started`). */
  readonly started: boolean | undefined;

  readonly #options: CommandOptions;
  readonly #reaper: Reaper;
  readonly #startedAt: number = performance.now();
  readonly #readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  #stdin: WritableStreamDefaultWriter<Uint8Array> | null = null;
  #lastOutput: number = this.#startedAt;
  #wallTimer: ReturnType<typeof setTimeout> | undefined;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #onAbort: (() => void) | undefined;
  /** The first error reading or keeping output, which stopped the command. */
  #outputFailure: { stream: string; error: unknown } | undefined;
  /** Bytes read from both streams so far. */
  #bytesRead = 0;
  /** The streams read to their end (a cancel is no end). */
  readonly #ended = new Set<BashOutputStream>();

  constructor(options: CommandOptions) {
    this.#options = options;
    const { child } = options;
    this.pid = child.pid;
    this.stdout = options.stdout;
    this.stderr = options.stderr;
    this.started = options.started;
    this.#reaper = "reaper" in options ? options.reaper : new GroupReaper(
      options.control,
      child.pid,
      options.killGraceMs,
      options.marker,
      ...(options.forksAtSpawn === undefined ? [] : [options.forksAtSpawn]),
    );
    if (child.stdin !== null) {
      const writer = child.stdin.getWriter();
      if (options.stdin !== undefined) writer.write(options.stdin).catch(() => {});
      if (options.keepStdinOpen) this.#stdin = writer;
      else writer.close().catch(() => {});
    }
    this.#startClocks();
    this.settled = this.#settle().catch((error) => {
      this.failure = error;
      this.isSettled = true;
    });
  }

  /**
   * Asks the command to end (SIGTERM, then SIGKILL after the grace period).
   * True when this request ended a still-running program; false when it had
   * exited already or another kill came first.
   */
  kill(cause: KillCause): boolean {
    if (this.isSettled) return false;
    const first = this.exit === null && this.cause === null;
    if (first) this.cause = cause;
    this.#reaper.terminate();
    return first;
  }

  /** The stdin pipe of a command started with `keepStdinOpen`, while it is open. */
  get stdinWriter(): WritableStreamDefaultWriter<Uint8Array> | null {
    return this.#stdin;
  }

  /** Closes stdin (idempotent); errors such as a closed pipe are ignored. */
  async closeStdin(): Promise<void> {
    const writer = this.#stdin;
    this.#stdin = null;
    await writer?.close().catch(() => {});
  }

  #startClocks(): void {
    const { timeoutMs, idleTimeoutMs, signal } = this.#options;
    if (timeoutMs !== undefined) {
      this.#wallTimer = setTimeout(() => this.kill("timeout"), timeoutMs);
    }
    if (idleTimeoutMs !== undefined) {
      const check = (): void => {
        const quiet = performance.now() - this.#lastOutput;
        if (quiet >= idleTimeoutMs) this.kill("idle");
        else this.#idleTimer = setTimeout(check, idleTimeoutMs - quiet);
      };
      this.#idleTimer = setTimeout(check, idleTimeoutMs);
    }
    // The signal may have aborted while the program was being spawned.
    if (signal?.aborted) this.kill("abort");
    else if (signal !== undefined) {
      this.#onAbort = () => this.kill("abort");
      signal.addEventListener("abort", this.#onAbort, { once: true });
    }
  }

  #stopClocks(): void {
    clearTimeout(this.#wallTimer);
    clearTimeout(this.#idleTimer);
    if (this.#onAbort !== undefined) {
      this.#options.signal?.removeEventListener("abort", this.#onAbort);
    }
  }

  /**
   * Reads one stream into its collector until the end of the stream (or a
   * cancel at settlement, which reads as the end). An error reading or
   * keeping a chunk is never taken for the end: the output is no longer
   * whole, so the command is stopped and the run fails with the reason.
   */
  async #pump(
    name: BashOutputStream,
    stream: ReadableStream<Uint8Array>,
    into: OutputCollector,
  ): Promise<void> {
    const reader = stream.getReader();
    this.#readers.push(reader);
    const watchIdle = this.#options.idleTimeoutMs !== undefined;
    const live = this.#options.onOutput === undefined ? undefined : new LiveTextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          this.#ended.add(name);
          if (live !== undefined) this.#tell(name, new Uint8Array(0), live.end());
          return;
        }
        this.#bytesRead += value.length;
        into.push(value);
        if (watchIdle) this.#lastOutput = performance.now();
        // The collector copied what it keeps, so the callback gets the chunk itself.
        if (live !== undefined) this.#tell(name, value, live.decode(value));
      }
    } catch (error) {
      this.#outputFailure ??= { stream: name, error };
      this.#reaper.terminate();
      await reader.cancel().catch(() => {});
    }
  }

  /**
   * Hands a chunk's bytes and decoded text to the `onOutput` callback. One
   * that throws (or whose promise rejects) is not called again, and the run
   * goes on: its error is kept for the result.
   */
  #tell(stream: BashOutputStream, bytes: Uint8Array, text: string): void {
    const onOutput = this.#options.onOutput;
    if (onOutput === undefined || this.onOutputError !== undefined) return;
    if (bytes.length === 0 && text === "") return;
    const failed = (error: unknown): void => {
      this.onOutputError ??= messageOf(error);
    };
    try {
      const returned: unknown = onOutput({ stream, bytes, text });
      if (returned instanceof Promise) returned.catch(failed);
    } catch (error) {
      failed(error);
    }
  }

  /**
   * Once the command's processes were stopped, reads the pipes to their end
   * and resolves null; or resolves why it stopped reading before the end:
   * 1. nothing came for {@linkcode PIPE_QUIET_MS} while a pipe stayed open.
   *    A pipe that no process holds any more ends within a look or two (its
   *    last bytes and its end are ready at once), so a pipe that stays quiet
   *    that long is held by a process that is still alive;
   * 2. more came than the pipes could have held when the processes were
   *    stopped ({@linkcode MAX_BYTES_AFTER_SWEEP}): a process that nothing
   *    stopped is writing them.
   * While bytes keep coming it keeps reading, however slowly they come.
   */
  async #readToEnd(pumps: Promise<unknown>): Promise<string | null> {
    const start = this.#bytesRead;
    let seen = start;
    let quietMs = 0;
    let lookedAt = performance.now();
    while (!(await settlesWithin(pumps, QUIET_LOOK_MS))) {
      const now = performance.now();
      const elapsed = Math.min(now - lookedAt, QUIET_LOOK_MS);
      lookedAt = now;
      if (this.#bytesRead - start > MAX_BYTES_AFTER_SWEEP) {
        return `more than ${MAX_BYTES_AFTER_SWEEP} bytes came after the command's processes were stopped, so ${
          this.#holder("writes to")
        }`;
      }
      if (this.#bytesRead !== seen) {
        seen = this.#bytesRead;
        quietMs = 0;
        continue;
      }
      quietMs += elapsed;
      if (quietMs >= PIPE_QUIET_MS) {
        return `nothing came for ${PIPE_QUIET_MS} ms after the command's processes were stopped, and ${
          this.#holder("holds")
        }`;
      }
    }
    return null;
  }

  /** Which process keeps a pipe open after the sweep, as far as it knows. */
  #holder(verb: string): string {
    const { survivors, censusFailed } = this.strays;
    if (survivors.length > 0) {
      return `a process that would not die (pid ${survivors.join(", ")}) still ${verb} the pipe`;
    }
    if (censusFailed !== undefined) {
      return `a process still ${verb} the pipe (no census could be taken: ${censusFailed})`;
    }
    return `a process the census cannot see (one that left the command's session and cgroup, or was handed the pipe) still ${verb} the pipe`;
  }

  async #settle(): Promise<void> {
    const { child, drainGraceMs } = this.#options;
    const pumps = Promise.all([
      this.#pump("stdout", child.stdout, this.stdout),
      this.#pump("stderr", child.stderr, this.stderr),
    ]);
    try {
      this.exit = await child.exited;
    } catch {
      this.exit = { code: null, signal: null };
    }
    this.#reaper.leaderExited();
    this.#stopClocks();
    const drained = await settlesWithin(pumps, drainGraceMs);
    this.strays = await this.#reaper.sweep(!drained);
    const more = await this.#options.afterSweep?.(this.#reaper.killedPids ?? new Set());
    if (more !== undefined) {
      const censusFailed = this.strays.censusFailed ?? more.censusFailed;
      this.strays = {
        ...this.strays,
        killed: this.strays.killed + more.killed,
        survivors: [...new Set([...this.strays.survivors, ...more.survivors])],
        ...(censusFailed === undefined ? {} : { censusFailed }),
      };
    }
    const gaps = this.#options.strayGaps ?? [];
    if (gaps.length > 0) this.strays = { ...this.strays, gaps: [...gaps] };
    const cut = drained ? null : await this.#readToEnd(pumps);
    if (cut !== null) {
      const unended = (["stdout", "stderr"] as const).filter((name) => !this.#ended.has(name));
      await Promise.all(this.#readers.map((reader) => reader.cancel().catch(() => {})));
      await pumps;
      for (const name of unended) this[name].cutShort(cut);
    }
    this.#reaper.dispose();
    await this.closeStdin();
    this.stdout.finish();
    this.stderr.finish();
    this.durationMs = performance.now() - this.#startedAt;
    const broken = this.#outputFailure;
    if (broken !== undefined) {
      this.failure = new BashSpawnError(
        `Reading the command's ${broken.stream} failed (${
          messageOf(broken.error)
        }), so the command was stopped and its output is incomplete; run it again, with less output if the error was about memory`,
        { cause: broken.error },
      );
    }
    this.isSettled = true;
  }
}
