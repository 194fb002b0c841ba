import { randomBytes } from "node:crypto";
import {
  BashSpawnError,
  type SandboxViolation,
  shellQuote,
  type StrayReport,
} from "../seam/mod.ts";
import { type ExitStatus, runtime, type SpawnedChild } from "../runtime/mod.ts";
import type { Reaper } from "../engine/mod.ts";
import { printfEscaped } from "../sandbox/backends/bwrap/mod.ts";
import { BOOTSTRAP } from "./_bootstrap_script.ts";
import { frame, MessageSplitter } from "./_frames.ts";
import type { RemoteTransport } from "./transport.ts";
import { clientEnv } from "./transport.ts";

/** What one remote command needs from the executor. */
export interface ChannelRequest {
  command: string;
  workdir: string;
  /** NAME=VALUE, in the order they apply (a later one wins). */
  env: readonly string[];
  /** The program and arguments to run in place of `bash -c command` (a sandbox wrapper). */
  argv?: readonly string[];
  /** A probe to run first, whose output gives `argv` (in place of the one above). */
  prepare?: Preparation;
  /** True when stdin is a pipe (bytes to send, or kept open); else /dev/null. */
  pipedStdin: boolean;
  /** The remote bash, run by the remote login shell (by its absolute path once learned). */
  shell: string;
  /**
   * The search path of the bootstrap's own programs (see `RemoteTools`), or
   * "" before the executor learned it: the session's PATH then.
   */
  tools: string;
  killGraceMs: number;
  drainGraceMs: number;
}

/**
 * A probe the bootstrap runs in the command's channel before the command
 * (no stdin, its stderr dropped): `finish` gets its exit code and output and
 * returns the program and arguments to run in place of `bash -c command`,
 * and the protected paths missing now, each with its quarantine; it may
 * throw, and then nothing runs. One channel instead of two.
 */
export interface Preparation {
  argv: readonly string[];
  finish(exitCode: number, output: string): Prepared;
}

/** What a {@linkcode Preparation} planned. */
export interface Prepared {
  argv: readonly string[];
  /**
   * Bytes the program reads from its stdin before the command's own stdin
   * (the sandbox wrapper's options, the command's environment among them):
   * they reach it through a pipe, never a command line or a file.
   */
  input?: Uint8Array;
  /** Paths to move to their quarantine (path, quarantine) when they exist once the command settled. */
  quarantine: readonly (readonly [string, string])[];
}

/** What the channel learned from the bootstrap's messages, shared with the stderr pump. */
interface ChannelState {
  finished: boolean;
  /** Protected paths the command made, moved to their quarantine (or not) once it settled. */
  violations: SandboxViolation[];
  lost: boolean;
  onLost: () => void;
}

/**
 * One command's channel: the transport's process carrying the bootstrap.
 * It hands {@linkcode RunningCommand} a child whose stdin frames the bytes,
 * whose stderr has the bootstrap's messages taken out, and whose exit is the
 * remote shell's; and a reaper that asks the remote side to kill and reports
 * the strays it found there. When the channel ends without the bootstrap's
 * last message, the connection was lost: `lost` is set and `onLost` runs
 * (the bootstrap kills the command when its stdin closes).
 */
export class RemoteChannel {
  /**
   * The remote shell's pid (also its session and group id); 0 when the
   * connection was lost before the remote side said it.
   */
  readonly pid: number;
  /** The remote user's id, as the remote bash says it; -1 when it never said. */
  readonly uid: number;
  readonly child: SpawnedChild;
  readonly reaper: Reaper;
  readonly #transport: RemoteTransport;
  readonly #transportChild: SpawnedChild;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  readonly #ended: Promise<void>;
  readonly #state: ChannelState;
  #killed = false;

  private constructor(
    transport: RemoteTransport,
    [pid, uid]: [number, number],
    transportChild: SpawnedChild,
    stdin: WritableStreamDefaultWriter<Uint8Array>,
    stderr: ReadableStream<Uint8Array>,
    exited: Promise<ExitStatus>,
    strays: Promise<StrayReport>,
    ended: Promise<void>,
    state: ChannelState,
  ) {
    this.pid = pid;
    this.uid = uid;
    this.#transport = transport;
    this.#state = state;
    this.#transportChild = transportChild;
    this.#stdin = stdin;
    this.#ended = ended;
    const send = (bytes: Uint8Array): Promise<void> => this.#send(bytes);
    this.child = {
      pid,
      stdout: transportChild.stdout,
      stderr,
      stdin: new WritableStream<Uint8Array>({
        write: (chunk) => send(frame("D", chunk)),
        close: () => send(frame("C")),
      }),
      exited,
      unref: () => transportChild.unref(),
      ref: () => transportChild.ref(),
    };
    this.reaper = {
      leaderExited: () => {},
      terminate: () => {
        if (this.#killed) return;
        this.#killed = true;
        this.#send(frame("K")).catch(() => {});
      },
      sweep: () => strays,
      dispose: () => {},
    };
  }

  /**
   * Starts the command on the remote side and resolves once the remote
   * shell runs; rejects with `BashSpawnError` when it could not start (the
   * connection failed, the workdir is missing, ...), leaving nothing running.
   *
   * A connection lost after the go was sent and before the remote side said
   * whether the command started may have let it run (and the remote side
   * killed it then): that resolves, with a channel already {@linkcode lost},
   * never with "could not start".
   */
  static async open(transport: RemoteTransport, request: ChannelRequest): Promise<RemoteChannel> {
    const marker = `\x1eshellseam-${randomBytes(8).toString("hex")}:`;
    const remote = `exec ${
      shellQuote([
        request.shell,
        "--norc",
        "--noprofile",
        "-c",
        BOOTSTRAP,
        "shellseam",
        marker,
        String(Math.round(request.killGraceMs)),
        String(Math.round(request.drainGraceMs)),
        request.tools,
      ])
    }`;
    const { program, args, session } = transport.command(remote);
    let child: SpawnedChild;
    try {
      child = await runtime.spawn({
        program,
        args,
        cwd: "/",
        env: clientEnv(),
        stdin: "piped",
        session: session ?? "detached",
      });
    } catch (cause) {
      throw new BashSpawnError(
        `Could not start "${program}" to reach ${transport.name}; check that it is installed`,
        { cause },
      );
    }
    const stdin = child.stdin!.getWriter();
    const send = (frames: Uint8Array[]): void => {
      for (const bytes of frames) stdin.write(bytes).catch(() => {});
    };
    /** True once the go frame was sent: from then on the command may run. */
    let going = false;
    /** True once the remote side said the command could not start ("F"). */
    let refused = false;
    let quarantine: Prepared["quarantine"] = [];
    let input: Uint8Array | undefined;
    const go = (argv: readonly string[]): Uint8Array[] => [
      ...argv.map((arg) => frame("A", arg)),
      // As a printf format: the bootstrap keeps it in a variable, which holds no NUL.
      ...(input === undefined ? [] : [frame("N", printfEscaped(input))]),
      ...quarantine.flatMap(([path, to]) => [frame("P", path), frame("T", to)]),
      frame(`I ${request.pipedStdin ? "p" : "n"}`),
      frame("G"),
    ];
    const goFrames = (argv: readonly string[]): Uint8Array[] => {
      going = true;
      return go(argv);
    };
    const { prepare } = request;
    send([
      frame("W", request.workdir),
      frame("X", request.command),
      ...request.env.map((entry) => frame("E", entry)),
      ...(prepare === undefined
        ? goFrames(request.argv ?? [])
        : [...prepare.argv.map((arg) => frame("A", arg)), frame("Q")]),
    ]);

    const splitter = new MessageSplitter(marker);
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const stderr = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
    let early = "";
    const decoder = new TextDecoder();
    let started!: (ids: [number, number]) => void;
    let failed!: (reason: string) => void;
    let answered!: (answer: [number, string]) => void;
    let unanswered!: (reason: string) => void;
    const probed = new Promise<[number, string]>((resolve, reject) => {
      answered = resolve;
      unanswered = reject;
    });
    const opened = new Promise<[number, number]>((resolve, reject) => {
      started = resolve;
      failed = (reason) => {
        reject(reason);
        unanswered(reason);
      };
    });
    // Awaited later (or never, when the probe's answer fails first).
    opened.catch(() => {});
    probed.catch(() => {});
    let exit!: (status: ExitStatus) => void;
    const exited = new Promise<ExitStatus>((resolve) => (exit = resolve));
    let report!: (strays: StrayReport) => void;
    const strays = new Promise<StrayReport>((resolve) => (report = resolve));
    let pid: number | null = null;
    const state: ChannelState = {
      finished: false,
      violations: [],
      lost: false,
      onLost: () => {},
    };
    const handle = (message: string): void => {
      const [tag, ...rest] = message.split(" ");
      if (tag === "S") {
        pid = Number(rest[0]);
        started([pid, Number(rest[1])]);
      } else if (tag === "F") {
        refused = true;
        failed(rest.join(" "));
      } else if (tag === "Q") {
        const bytes = Uint8Array.from(atob(rest[1] ?? ""), (char) => char.charCodeAt(0));
        answered([Number(rest[0]), decoder.decode(bytes)]);
      } else if (tag === "E") {
        exit({
          code: rest[0] === "-" ? null : Number(rest[0]),
          signal: rest[1] === "-" || rest[1] === undefined ? null : rest[1],
        });
      } else if (tag === "V") {
        const moved = quarantine[Number(rest[0])];
        if (moved !== undefined) {
          state.violations.push({
            path: moved[0],
            quarantinedTo: rest[1] === "1" ? moved[1] : null,
          });
        }
      } else if (tag === "Z") {
        state.finished = true;
        const survivors = rest.slice(1).filter((word) => word !== "").map(Number);
        report({ killed: Number(rest[0]), survivors });
        // Nothing more comes from the remote side: end the channel.
        stdin.close().catch(() => {});
      }
    };
    const pump = async (): Promise<void> => {
      const reader = child.stderr.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          const { data, messages } = splitter.push(value);
          for (const bytes of data) {
            if (pid === null) early += decoder.decode(bytes, { stream: true });
            controller.enqueue(bytes);
          }
          for (const message of messages) handle(message);
        }
      } catch {
        // A broken pipe ends the stream like its end.
      }
      const rest = splitter.end();
      if (rest.length > 0) controller.enqueue(rest);
      controller.close();
    };
    const ended = pump().then(async () => {
      const status = await child.exited;
      if (pid === null) {
        if (!going || refused || !cut(status)) {
          failed(
            `${early.trim() || `the transport exited with ${status.code ?? status.signal}`}`,
          );
          return;
        }
        // Cut after the go: the command may have started, and the remote side then killed it.
        pid = 0;
        started([0, -1]);
      }
      if (!state.finished) {
        state.lost = true;
        state.onLost();
        exit({ code: null, signal: null });
        // No census came: that is never "nothing left" (the remote side kills the
        // command's session when its channel closes, but nothing here saw it).
        report({
          killed: 0,
          survivors: [],
          censusFailed:
            `the connection to ${transport.name} was lost before the remote side reported what the command left running`,
        });
      }
    });
    try {
      if (prepare !== undefined) {
        const [exitCode, output] = await probed;
        const prepared = prepare.finish(exitCode, output);
        quarantine = prepared.quarantine;
        input = prepared.input;
        send(goFrames(prepared.argv));
      }
      const ids = await opened;
      return new RemoteChannel(transport, ids, child, stdin, stderr, exited, strays, ended, state);
    } catch (reason) {
      stdin.close().catch(() => {});
      await ended;
      if (reason instanceof Error) throw reason;
      throw new BashSpawnError(
        `The command could not start on ${transport.name}: ${String(reason)}`,
      );
    }
  }

  /** Protected paths the command made, moved to their quarantine once it settled. */
  get violations(): readonly SandboxViolation[] {
    return this.#state.violations;
  }

  /** True once the channel ended before the bootstrap's last message: the connection was lost. */
  get lost(): boolean {
    return this.#state.lost;
  }

  /** Runs `handler` when the connection is found lost (at once if it was already). */
  set onLost(handler: () => void) {
    this.#state.onLost = handler;
    if (this.#state.lost) handler();
  }

  /**
   * Once the command settled: ends the transport's process if it is still
   * running (a process that left the session may hold the channel open) and
   * awaits its exit.
   */
  async release(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const gone = await Promise.race([
      this.#ended.then(() => true),
      new Promise<boolean>((done) => (timer = setTimeout(done, 100, false))),
    ]);
    clearTimeout(timer);
    if (!gone) {
      this.#stdin.close().catch(() => {});
      const pid = this.#transportChild.pid;
      await (this.#transport.kill?.(pid, "SIGTERM") ?? runtime.kill(pid, "SIGTERM"));
    }
    await this.#transportChild.exited;
  }

  async #send(bytes: Uint8Array): Promise<void> {
    await this.#stdin.write(bytes);
  }
}

/**
 * True when the transport's process ended as a cut connection does: by a
 * signal, or with 255 (what `ssh` exits with when the connection fails or
 * is lost), rather than with the remote shell's own status.
 */
function cut(status: ExitStatus): boolean {
  return status.signal !== null || status.code === null || status.code === 255;
}
