import {
  BashConfigError,
  type BashOutputEvent,
  type BashProcess,
  type BashProcessRead,
  type BashProcessStatus,
  type BashSandboxInfo,
  type BashStreamRead,
  type ResourceLimitHit,
  type SandboxViolation,
  type StrayReport,
} from "../seam/mod.ts";
import { kindOf } from "../seam/checks.ts";
import { messageOf } from "../seam/message.ts";
import type { RunningCommand } from "./_command.ts";
import type { TerminalControl } from "./_terminal.ts";
import { joined, type OutputCollector } from "./_output.ts";
import { StreamReader } from "./_output_reader.ts";
import { omissionMarker } from "./_utf8.ts";
import { cutCharacterBytes, decodeText, markBytes, wholePrefixLength } from "./_stream_text.ts";

const encoder = new TextEncoder();

/**
 * A consuming read position in one stream. A character cut by the end of a
 * read waits for the next read; one cut by a gap in what is retained is left
 * out and counted as dropped, as `run()` does at the edges of head and tail.
 * The stream is decoded as its collector decodes it (UTF-16 after a
 * byte-order mark, else UTF-8); nothing is read until its first bytes tell.
 */
class StreamCursor {
  #offset = 0;
  #pending: Uint8Array = new Uint8Array(0);

  read(collector: OutputCollector, final: boolean): { text: string; dropped: number } {
    const encoding = collector.encoding;
    if (encoding === undefined) return { text: "", dropped: 0 };
    const slice = collector.readFrom(this.#offset);
    // The byte-order mark is no text: it goes with the first bytes read.
    let mark = this.#offset === 0 ? markBytes(encoding) : 0;
    const skipMark = (bytes: Uint8Array): Uint8Array => {
      const skip = Math.min(mark, bytes.length);
      mark = 0;
      return bytes.subarray(skip);
    };
    this.#offset = slice.end;
    let dropped = slice.dropped;
    let text = "";
    let rest = joined(this.#pending, slice.before);
    if (dropped > 0) {
      rest = skipMark(rest);
      const whole = wholePrefixLength(rest, encoding);
      text = decodeText(rest.subarray(0, whole), encoding);
      dropped += rest.length - whole;
      rest = slice.after ?? new Uint8Array(0);
      const skip = cutCharacterBytes(rest, encoding, slice.end - rest.length);
      dropped += skip;
      rest = rest.subarray(skip);
      text += omissionMarker(text, dropped);
    } else {
      rest = skipMark(joined(rest, slice.after));
    }
    const whole = final ? rest.length : wholePrefixLength(rest, encoding);
    text += decodeText(rest.subarray(0, whole), encoding);
    this.#pending = rest.slice(whole);
    return { text, dropped };
  }
}

/** One stream's read, with its spill file's facts. */
function streamRead(
  read: { text: string; dropped: number },
  collector: OutputCollector,
): BashStreamRead {
  const stream: BashStreamRead = {
    text: read.text,
    truncated: read.dropped > 0,
    omittedBytes: read.dropped,
    spillComplete: collector.spillComplete,
  };
  const spillPath = collector.spillPath;
  const spillError = collector.spillError;
  if (spillPath !== null) stream.spillPath = spillPath;
  if (spillError !== null) stream.spillError = spillError;
  const binary = collector.binary;
  if (binary !== undefined) stream.binary = binary;
  const cut = collector.cut;
  if (cut !== null) stream.cut = cut;
  return stream;
}

/** A background command as `LocalBashExecutor.start()` hands it out. */
export class LocalBashProcess implements BashProcess {
  readonly command: string;
  readonly pid: number;
  readonly done: Promise<void>;
  sandbox?: BashSandboxInfo;
  strays?: StrayReport;
  limitHit?: ResourceLimitHit;
  error?: string;
  readonly #command: RunningCommand;
  readonly #keepStdinOpen: boolean;
  readonly #stdout = new StreamCursor();
  readonly #stderr = new StreamCursor();
  readonly #beforeRead: (() => SandboxViolation[]) | undefined;
  readonly #terminal: TerminalControl | undefined;
  #released = false;

  constructor(
    command: string,
    running: RunningCommand,
    keepStdinOpen: boolean,
    describe: () => {
      sandbox: BashSandboxInfo | undefined;
      limitHit: ResourceLimitHit | undefined;
    },
    beforeRead?: () => SandboxViolation[],
    terminal?: TerminalControl,
  ) {
    this.command = command;
    this.#terminal = terminal;
    this.#beforeRead = beforeRead;
    this.pid = running.pid;
    this.#command = running;
    this.#keepStdinOpen = keepStdinOpen;
    this.done = running.settled.then(() => {
      if (running.failure !== undefined) this.error = messageOf(running.failure);
      this.strays = running.strays;
      try {
        const { sandbox, limitHit } = describe();
        if (sandbox !== undefined) this.sandbox = sandbox;
        if (limitHit !== undefined) this.limitHit = limitHit;
      } catch {
        // A broken describe hook must not make `done` reject.
      }
    });
  }

  get status(): BashProcessStatus {
    const running = this.#command;
    if (!running.isSettled) return "running";
    return (running.exit?.signal ?? null) !== null || running.cause !== null
      ? "killed"
      : "completed";
  }

  get exitCode(): number | null {
    return this.#command.isSettled ? this.#command.exit?.code ?? null : null;
  }

  get disposed(): boolean {
    return this.#command.isSettled && this.#command.cause === "dispose";
  }

  get signal(): string | null {
    return this.#command.isSettled ? this.#command.exit?.signal ?? null : null;
  }

  readOutput(): BashProcessRead {
    if (this.#released) {
      throw new BashConfigError(
        `Process ${this.pid} was released, so its output is gone; read it before calling release()`,
      );
    }
    const running = this.#command;
    const violations = running.isSettled ? [] : this.#beforeRead?.() ?? [];
    const final = running.isSettled;
    const read: BashProcessRead = {
      stdout: streamRead(this.#stdout.read(running.stdout, final), running.stdout),
      stderr: streamRead(this.#stderr.read(running.stderr, final), running.stderr),
      status: this.status,
      exitCode: this.exitCode,
      signal: this.signal,
    };
    if (violations.length > 0) read.violations = violations;
    return read;
  }

  async *output(): AsyncGenerator<BashOutputEvent, void, undefined> {
    if (this.#released) {
      throw new BashConfigError(
        `Process ${this.pid} was released, so its output is gone; read it before calling release()`,
      );
    }
    const running = this.#command;
    const readers = [
      new StreamReader("stdout", running.stdout),
      new StreamReader("stderr", running.stderr),
    ];
    try {
      for (;;) {
        let yielded = false;
        for (const reader of readers) {
          for (const event of await reader.step()) {
            yielded = true;
            yield event;
          }
        }
        if (yielded) continue;
        const open = readers.filter((reader) => !reader.atEnd);
        if (open.length === 0) return;
        await Promise.race(open.map((reader) => reader.changed()));
      }
    } finally {
      await Promise.all(readers.map((reader) => reader.close()));
    }
  }

  async write(data: string | Uint8Array): Promise<void> {
    if (typeof data !== "string" && !(data instanceof Uint8Array)) {
      throw new BashConfigError(
        `"data" must be a string or a Uint8Array; got ${kindOf(data)}; encode it first`,
      );
    }
    const writer = this.#openStdin("write to");
    try {
      await writer.write(typeof data === "string" ? encoder.encode(data) : data);
    } catch (cause) {
      throw new BashConfigError(
        `Stdin of process ${this.pid} is closed (the command exited or stopped reading); start a new process to send more input`,
        { cause },
      );
    }
  }

  async closeStdin(): Promise<void> {
    if (!this.#keepStdinOpen) this.#openStdin("close");
    await this.#command.closeStdin();
  }

  async resize(rows: number, cols: number): Promise<void> {
    const terminal = this.#terminal;
    if (terminal === undefined) {
      throw new BashConfigError(
        `Process ${this.pid} has no terminal to resize; start it with start({ command, terminal: { rows, cols } })`,
      );
    }
    if (this.#command.exit !== null || this.#command.isSettled) {
      throw new BashConfigError(
        `Process ${this.pid} is no longer running, so its terminal cannot be resized; start a new one`,
      );
    }
    await terminal.resize(rows, cols);
  }

  async kill(): Promise<boolean> {
    const first = this.#command.kill("kill");
    await this.done;
    return first;
  }

  release(): Promise<void> {
    if (!this.#command.isSettled) {
      return Promise.reject(
        new BashConfigError(
          `Process ${this.pid} is still running, so it cannot be released; kill it or await "done" first`,
        ),
      );
    }
    if (!this.#released) {
      this.#released = true;
      this.#command.stdout.release();
      this.#command.stderr.release();
    }
    return Promise.resolve();
  }

  #openStdin(verb: string): WritableStreamDefaultWriter<Uint8Array> {
    if (!this.#keepStdinOpen) {
      throw new BashConfigError(
        `Cannot ${verb} stdin of process ${this.pid}: it was not started with "keepStdinOpen: true"; pass that option to start()`,
      );
    }
    const writer = this.#command.stdinWriter;
    if (writer === null || this.#command.exit !== null) {
      throw new BashConfigError(
        `Cannot ${verb} stdin of process ${this.pid}: stdin is closed or the command exited; start a new process to send more input`,
      );
    }
    return writer;
  }
}
