import process from "node:process";
import { clearTimeout as clearUnrefTimeout, setTimeout as setUnrefTimeout } from "node:timers";
import { BashSpawnError } from "../seam/mod.ts";
import { messageOf } from "../seam/_message.ts";
import type { Runtime, SessionStrategy, SpawnedChild } from "../runtime/mod.ts";
import { WATCHDOG_SCRIPT } from "./_watchdog_script.ts";

/** How long the watchdog may take to answer a census or a signal request. */
const ANSWER_WAIT_MS = 10_000;
/** How long a settled session may wait to be released, unless a new one is told first. */
const RELEASE_DELAY_MS = 200;

/** The name the watchdog runs under (its `$0`), so it can be found in /proc by its command line. */
export const WATCHDOG_NAME = "shellseam-watchdog";

/**
 * The variable every command's environment carries: `<token>.<n>`, the
 * executor's watchdog token and the command's number. A kill finds the
 * command's processes in other sessions by it; when the host dies, the
 * watchdog kills whatever carries its token.
 */
export const WATCHDOG_VARIABLE = "SHELLSEAM_WATCHDOG";

const SCRIPT_VARIABLE = "SHELLSEAM_WATCHDOG_SCRIPT";

const encoder = new TextEncoder();

/** How to start the watchdog: the same bash and session mechanism as the commands. */
export interface WatchdogOptions {
  runtime: Runtime;
  bash: string;
  setsidPath: string | null;
  session: SessionStrategy;
  /** Where private directories are made; the watchdog removes those of dead hosts there. */
  tempRoot: string;
}

interface Live {
  child: SpawnedChild;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  reader: ReadableStreamDefaultReader<Uint8Array>;
  dead: boolean;
}

interface Pending {
  resolve: (words: string[]) => void;
  reject: (error: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * The host side of the watchdog (see `_watchdog_script.ts`): a bash process
 * per executor, in a session of its own, holding a pipe from this process.
 * When this process dies, however it dies, the pipe closes and the watchdog
 * SIGKILLs every command session it was told about and removes the private
 * directory. It also takes censuses of /proc and sends signals for a host
 * that may not (Deno without `--allow-all`, a scoped `--allow-run`, EMFILE).
 * Telling it about a command costs one line written to a pipe.
 */
export class Watchdog {
  readonly #options: WatchdogOptions;
  /** The value of {@linkcode WATCHDOG_VARIABLE} in the environment of this executor's commands. */
  readonly token: string = crypto.randomUUID();
  readonly #sessions = new Set<number>();
  readonly #pending = new Map<number, Pending>();
  #released: number[] = [];
  #releaseTimer: ReturnType<typeof setUnrefTimeout> | undefined;
  #dir: string | null = null;
  readonly #cgroupFolders: string[] = [];
  #live: Live | null = null;
  #starting: Promise<Live> | null = null;
  /** The last write to the watchdog, until it completes. */
  #lastWrite: Promise<void> = Promise.resolve();
  #nextId = 1;
  #reading = false;
  #text = "";
  #closed = false;

  constructor(options: WatchdogOptions) {
    this.#options = options;
  }

  /**
   * The host's pid and start time as `<pid>-<start>`, once the watchdog has
   * started and could read them, else null. A private directory named
   * `shellseam-exec-<owner>-...` is removed by a later watchdog once its owner is gone.
   */
  owner: string | null = null;

  /** The watchdog's pid while it runs, else null. */
  get pid(): number | null {
    return this.#live?.dead === false ? this.#live.child.pid : null;
  }

  /**
   * Starts the watchdog unless it runs (again, when it died: it is told the
   * sessions and the directory anew), and waits for the last write to
   * complete. Rejects with `BashSpawnError` when it cannot start: then
   * nothing would stop a command from outliving the host. Called before each
   * spawn: a write to an idle pipe reaches the kernel before `write()`
   * returns (Deno queues one behind a write in flight until a later turn of
   * the event loop), so a command is known to the watchdog as soon as it is
   * spawned, and a host killed a moment later loses no session.
   */
  async ready(): Promise<void> {
    await this.#ensure();
    await this.#lastWrite;
  }

  /**
   * A command's session (its pid) started: kill it when the host dies. With
   * the releases waiting, this is one write of one line per command.
   */
  watch(sid: number): void {
    this.#sessions.add(sid);
    this.#send([...this.#takeReleased(), `+ ${sid}`].join("\n"));
  }

  /**
   * A command's session settled: nothing of it is left to kill. Said with the
   * next `watch()`, or within {@linkcode RELEASE_DELAY_MS}, before its pid
   * could come round again.
   */
  release(sid: number): void {
    this.#sessions.delete(sid);
    this.#released.push(sid);
    if (this.#releaseTimer !== undefined) return;
    this.#releaseTimer = setUnrefTimeout(() => {
      const lines = this.#takeReleased();
      if (lines.length > 0) this.#send(lines.join("\n"));
    }, RELEASE_DELAY_MS);
    this.#releaseTimer.unref();
  }

  /** The private directory: the watchdog records its owner there and removes it when the host dies. */
  guard(dir: string): void {
    this.#dir = dir;
    this.#send(`d ${dir}`);
  }

  /**
   * An executor folder of command cgroups (`<folder>/<n>`): when the host
   * dies the watchdog kills what is left in them and removes them.
   */
  guardCgroups(folder: string): void {
    this.#cgroupFolders.push(folder);
    this.#send(`g ${folder}`);
  }

  /** Live members of session `sid`, by the watchdog's census of /proc; rejects with why none was taken. */
  async census(sid: number): Promise<number[]> {
    const words = await this.#ask("c", String(sid));
    return words.map(Number);
  }

  /** Live processes whose environment holds exactly `entry` (`NAME=value`), by the watchdog. */
  async marked(entry: string): Promise<number[]> {
    const words = await this.#ask("m", entry);
    return words.map(Number);
  }

  /**
   * Sends `signal` to each target (a negative one is a process group); for
   * each, true when sent, false when there was no such process. Rejects when
   * a signal was refused or the watchdog could not be asked.
   */
  async signal(signal: "SIGTERM" | "SIGKILL" | 0, targets: readonly number[]): Promise<boolean[]> {
    const name = signal === 0 ? "0" : signal.slice(3);
    const words = await this.#ask("k", `${name} ${targets.join(" ")}`);
    const refused = targets.filter((_, index) => words[index] === "2");
    if (refused.length > 0) {
      throw new Error(`the watchdog was refused ${signal} to ${refused.join(", ")}`);
    }
    return words.map((word) => word === "1");
  }

  /** Stops the watchdog without killing anything (the executor did its own cleanup). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#takeReleased();
    const live = this.#live ?? (await this.#starting?.catch(() => null)) ?? null;
    this.#live = null;
    if (live === null) return;
    live.child.ref();
    if (!live.dead) await live.writer.write(encoder.encode("q\n")).catch(() => {});
    await live.writer.close().catch(() => {});
    await live.reader.cancel().catch(() => {});
    await live.child.exited;
  }

  #ensure(): Promise<Live> {
    if (this.#closed) return Promise.reject(new BashSpawnError("The watchdog was closed"));
    if (this.#live !== null && !this.#live.dead) return Promise.resolve(this.#live);
    this.#starting ??= this.#start().finally(() => (this.#starting = null));
    return this.#starting;
  }

  async #start(): Promise<Live> {
    const { runtime, bash, setsidPath, session, tempRoot } = this.#options;
    let child: SpawnedChild;
    try {
      child = await runtime.spawn({
        program: setsidPath ?? bash,
        args: [
          ...(setsidPath === null ? [] : [bash]),
          "--norc",
          "--noprofile",
          "-c",
          `eval "$${SCRIPT_VARIABLE}"`,
          WATCHDOG_NAME,
          tempRoot,
          this.token,
        ],
        cwd: "/",
        // The script travels in the environment, so its command line stays short.
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          LC_ALL: "C",
          [SCRIPT_VARIABLE]: WATCHDOG_SCRIPT,
        },
        stdin: "piped",
        session,
      });
    } catch (cause) {
      throw new BashSpawnError(
        `Could not start the watchdog that kills commands when this process dies: ${
          messageOf(cause)
        }; fix that, since no command runs without it`,
        { cause },
      );
    }
    if (child.stdin === null) throw new BashSpawnError("The watchdog got no stdin pipe");
    child.unref();
    await child.stderr.cancel();
    const live: Live = {
      child,
      writer: child.stdin.getWriter(),
      reader: child.stdout.getReader(),
      dead: false,
    };
    child.exited.then(() => this.#died(live));
    this.#live = live;
    const [pid, start] = await this.#expect(live, 0);
    this.owner = /^\d+$/.test(pid ?? "") && /^\d+$/.test(start ?? "") ? `${pid}-${start}` : null;
    const lines = [...this.#sessions].map((sid) => `+ ${sid}`);
    if (this.#dir !== null) lines.push(`d ${this.#dir}`);
    for (const folder of this.#cgroupFolders) lines.push(`g ${folder}`);
    if (lines.length > 0) this.#write(live, lines.join("\n"));
    return live;
  }

  #takeReleased(): string[] {
    clearUnrefTimeout(this.#releaseTimer);
    this.#releaseTimer = undefined;
    const lines = this.#released.map((sid) => `- ${sid}`);
    this.#released = [];
    return lines;
  }

  #send(line: string): void {
    const live = this.#live;
    if (live !== null && !live.dead) this.#write(live, line);
    // Otherwise the next start tells it everything it must know.
  }

  #write(live: Live, lines: string): void {
    this.#lastWrite = live.writer.write(encoder.encode(lines + "\n")).catch(() => this.#died(live));
  }

  async #ask(op: string, args: string): Promise<string[]> {
    const live = await this.#ensure();
    const id = this.#nextId++;
    this.#write(live, `${op} ${id} ${args}`);
    return await this.#expect(live, id);
  }

  /** The answer numbered `id`. */
  #expect(live: Live, id: number): Promise<string[]> {
    const answer = new Promise<string[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`the watchdog did not answer within ${ANSWER_WAIT_MS} ms`));
      }, ANSWER_WAIT_MS);
      this.#pending.set(id, { resolve, reject, timer });
    });
    this.#read(live);
    return answer;
  }

  /** Reads answers while some are awaited, so an idle watchdog keeps no read going. */
  async #read(live: Live): Promise<void> {
    if (this.#reading) return;
    this.#reading = true;
    try {
      const decoder = new TextDecoder();
      while (this.#pending.size > 0 && !live.dead) {
        const { done, value } = await live.reader.read();
        if (done) break;
        this.#text += decoder.decode(value, { stream: true });
        let end;
        while ((end = this.#text.indexOf("\n")) >= 0) {
          this.#answer(this.#text.slice(0, end).split(" "));
          this.#text = this.#text.slice(end + 1);
        }
      }
    } catch {
      // The pipe broke: the watchdog is gone.
    } finally {
      this.#reading = false;
    }
    if (this.#pending.size > 0) this.#died(live);
  }

  #answer([kind, id, ...words]: string[]): void {
    const pending = this.#pending.get(Number(id));
    if (pending === undefined) return;
    this.#pending.delete(Number(id));
    clearTimeout(pending.timer);
    if (kind === "e") pending.reject(new Error(`the watchdog: ${words.join(" ")}`));
    else pending.resolve(words);
  }

  #died(live: Live): void {
    if (!live.dead) {
      live.dead = true;
      live.reader.cancel().catch(() => {});
      live.writer.abort().catch(() => {});
    }
    if (this.#live === live) this.#live = null;
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      clearTimeout(pending.timer);
      pending.reject(new Error("the watchdog exited"));
    }
  }
}
