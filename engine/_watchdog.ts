import { clearTimeout as clearUnrefTimeout, setTimeout as setUnrefTimeout } from "node:timers";
import { BashSpawnError } from "../seam/mod.ts";
import { messageOf } from "../seam/message.ts";
import {
  type PlatformFacts,
  platformOf,
  type Runtime,
  type SessionStrategy,
  type SpawnedChild,
} from "../runtime/mod.ts";
import { WATCHDOG_SCRIPT } from "./_watchdog_script.ts";
import { PORTABLE_WATCHDOG_SCRIPT } from "./_watchdog_portable_script.ts";
import { hostToolPath } from "./_host_tools.ts";

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

/** How many pids' process groups the watchdog's answers are remembered for. */
const MAX_GROUPS = 4096;

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
  /**
   * Where there is no `/proc` (`platform.proc` false) the portable watchdog
   * runs instead, a POSIX `sh` script (see `_watchdog_portable_script.ts`)
   * finding processes through `ps` of `platform.ps`'s flavour. By default
   * the runtime's (see `platformOf`).
   */
  platform?: PlatformFacts;
  /** The POSIX shell that runs the portable watchdog; `/bin/sh` by default. */
  sh?: string;
  /**
   * Where the watchdog finds its programs (`grep`, `rm`, ...): by default
   * `hostToolPath()` when it starts. Never the whole PATH, which may list a
   * folder a confined command can write (see `_host_tools.ts`).
   */
  toolPath?: string;
  /**
   * Throws (`BashSpawnError`, naming the program and what to do) when the
   * programs the watchdog is started with (its shell, the setsid binary in
   * front) must not run outside any sandbox now: asked before each start,
   * a restart too. The engine asks its confiner (see
   * `Confiner.unconfinedExposure`); none asks nothing.
   */
  vet?: (programs: readonly string[]) => void;
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
 * Telling it about a command costs one line written to a pipe. Where there
 * is no /proc (macOS) it is a POSIX `sh` process instead (see
 * `_watchdog_portable_script.ts`), which finds processes through `ps` and
 * takes every census.
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
  /** Each pid's process group as the portable watchdog last named it. */
  readonly #groups = new Map<number, number>();
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

  /**
   * Live members of session `sid`, by the watchdog's census of /proc; where
   * there is none, of process group `sid` and their descendants, through
   * `ps`. Rejects with why none was taken.
   */
  async census(sid: number): Promise<number[]> {
    return this.#pids(await this.#ask("c", String(sid)));
  }

  /** Live processes whose environment holds exactly `entry` (`NAME=value`), by the watchdog. */
  async marked(entry: string): Promise<number[]> {
    return this.#pids(await this.#ask("m", entry));
  }

  /**
   * {@linkcode census} of each of `sids` by one listing of `ps`, and
   * {@linkcode marked} of each of `entries` (none holding a space): the
   * portable watchdog's only, where each census is a run of `ps`. A key
   * nothing was found for is left out.
   */
  async censusOfAll(sids: readonly number[]): Promise<Map<number, number[]>> {
    return this.#byKey(sids, await this.#ask("C", this.#keys(sids)));
  }

  /** See {@linkcode censusOfAll}. */
  async markedAll(entries: readonly string[]): Promise<Map<string, number[]>> {
    return this.#byKey(entries, await this.#ask("M", this.#keys(entries)));
  }

  /** `keys` as one request's words; throws where the portable watchdog does not run. */
  #keys(keys: readonly (string | number)[]): string {
    const platform = this.#options.platform ?? platformOf(this.#options.runtime);
    if (platform.proc) throw new Error("only the portable watchdog answers several keys at once");
    const words = keys.map(String);
    if (words.some((word) => word === "" || /\s/.test(word))) {
      throw new Error(`a census key is empty or holds a space: ${JSON.stringify(words)}`);
    }
    return words.join(" ");
  }

  /** An answer's words `<k>:<pid>/<pgid>` as the pids of each of `keys` (the k-th). */
  #byKey<Key>(keys: readonly Key[], words: readonly string[]): Map<Key, number[]> {
    const found = new Map<Key, number[]>();
    for (const word of words) {
      const colon = word.indexOf(":");
      const key = keys[Number(word.slice(0, colon))];
      if (colon < 0 || key === undefined) throw new Error(`the watchdog said "${word}"`);
      found.set(key, [...(found.get(key) ?? []), ...this.#pids([word.slice(colon + 1)])]);
    }
    return found;
  }

  /**
   * The process group of `pid` as the portable watchdog's last answer that
   * named it said, else undefined (the Linux watchdog answers pids alone).
   */
  groupOf(pid: number): number | undefined {
    return this.#groups.get(pid);
  }

  /** The pids of an answer's words: `<pid>`, or `<pid>/<pgid>` from the portable watchdog. */
  #pids(words: readonly string[]): number[] {
    return words.map((word) => {
      const [pid, pgid] = word.split("/").map(Number);
      if (pgid !== undefined) {
        this.#groups.delete(pid!);
        this.#groups.set(pid!, pgid);
        // The oldest first: only the last answers matter.
        if (this.#groups.size > MAX_GROUPS) this.#groups.delete(this.#groups.keys().next().value!);
      }
      return pid!;
    });
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
    // A start under way sets `#live` before the watchdog named the owner: wait for all of it,
    // or a private folder made meanwhile would carry no owner, and no later watchdog reap it.
    if (this.#starting !== null) return this.#starting;
    if (this.#live !== null && !this.#live.dead) return Promise.resolve(this.#live);
    this.#starting ??= this.#start().finally(() => (this.#starting = null));
    return this.#starting;
  }

  async #start(): Promise<Live> {
    const { runtime, bash, setsidPath, session, tempRoot } = this.#options;
    const platform = this.#options.platform ?? platformOf(runtime);
    const portable = !platform.proc;
    const shell = portable ? [this.#options.sh ?? "/bin/sh"] : [bash, "--norc", "--noprofile"];
    // Before anything runs: a confined command may have replaced one since the last start.
    this.#options.vet?.([...(setsidPath === null ? [] : [setsidPath]), shell[0]!]);
    let child: SpawnedChild;
    try {
      child = await runtime.spawn({
        program: setsidPath ?? shell[0]!,
        args: [
          ...(setsidPath === null ? shell.slice(1) : shell),
          "-c",
          `eval "$${SCRIPT_VARIABLE}"`,
          WATCHDOG_NAME,
          tempRoot,
          this.token,
          ...(portable ? [platform.ps] : []),
        ],
        cwd: "/",
        // The script travels in the environment, so its command line stays short.
        env: {
          // Empty, bash would search its working directory.
          PATH: (this.#options.toolPath ?? hostToolPath()) || "/usr/bin:/bin",
          LC_ALL: "C",
          // The portable watchdog names an owner by its start as `ps` prints it, in local
          // time: in UTC every watchdog renders a start alike, whatever the time zone or
          // daylight saving did since (else a live folder would read as another's, and go).
          TZ: "UTC0",
          [SCRIPT_VARIABLE]: portable ? PORTABLE_WATCHDOG_SCRIPT : WATCHDOG_SCRIPT,
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
    // Clock ticks since boot from /proc; `p` and the date and time from `ps` (see the portable script).
    this.owner = /^\d+$/.test(pid ?? "") && /^p?\d+$/.test(start ?? "") ? `${pid}-${start}` : null;
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
