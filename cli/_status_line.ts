import type { CliStream } from "./_io.ts";
import type { Style } from "./_style.ts";
import { styleFor } from "./_style.ts";

/** How often the status line is redrawn: well within the 2 s a person waits without a sign. */
const REDRAW_MS = 1000;

/**
 * A one-line status on stderr while something long runs, redrawn every
 * second: only when stderr is a terminal (otherwise it writes nothing). Text
 * that goes to the same terminal is written through {@linkcode write}, which
 * clears the line first; the line is drawn only after a complete line of
 * output, so a command's unfinished line (a prompt, a progress bar) is never
 * erased.
 */
export class StatusLine implements Disposable {
  readonly #stderr: CliStream;
  readonly #text: (elapsedSeconds: number) => string;
  readonly #startedAt: number = performance.now();
  readonly #timer: ReturnType<typeof setInterval> | undefined;
  readonly #style: Style;
  #shown = false;
  #atLineStart = true;

  /**
   * Starts the redraws of `text` (given the whole seconds since now) on
   * `stderr`, the first after one second.
   */
  constructor(stderr: CliStream, text: (elapsedSeconds: number) => string) {
    this.#stderr = stderr;
    this.#style = styleFor(stderr);
    this.#text = text;
    if (stderr.isTTY !== true) return;
    this.#timer = setInterval(() => this.#draw(), REDRAW_MS);
    // The status line alone never keeps the program alive.
    this.#timer.unref?.();
  }

  /**
   * Writes `text` (or bytes, passed on as they are) to `stream` (stdout or
   * stderr) below the status line: the line is cleared first when it is
   * shown on the same terminal.
   */
  write(stream: CliStream, text: string | Uint8Array): void {
    if (text.length === 0) return;
    if (stream.isTTY === true) {
      this.#clear();
      this.#atLineStart = endsLine(text);
    }
    stream.write(text);
  }

  /** Whether the last text written to a terminal ended its line (true before any). */
  get atLineStart(): boolean {
    return this.#atLineStart;
  }

  /** Clears the line and stops the redraws. */
  [Symbol.dispose](): void {
    clearInterval(this.#timer);
    this.#clear();
  }

  #draw(): void {
    if (!this.#atLineStart) return;
    const seconds = Math.floor((performance.now() - this.#startedAt) / 1000);
    // One row: a line longer than the terminal would wrap, and "\r" would clear only its last row.
    const width = Math.max((this.#stderr.columns || 80) - 1, 10);
    const text = this.#text(seconds);
    const fitted = text.length > width ? `${text.slice(0, width - 3)}...` : text;
    this.#stderr.write(`\r\x1b[2K${this.#style.dim(fitted)}`);
    this.#shown = true;
  }

  #clear(): void {
    if (!this.#shown) return;
    this.#stderr.write("\r\x1b[2K");
    this.#shown = false;
  }
}

/** Whether `text` (or bytes) ends with a newline. */
export function endsLine(text: string | Uint8Array): boolean {
  return typeof text === "string" ? text.endsWith("\n") : text[text.length - 1] === 0x0a;
}
