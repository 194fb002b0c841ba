/**
 * A terminal process's screen, fed as its output arrives: one `output()`
 * reader for the task's life writes each piece of stdout to the renderer,
 * so the screen is current whenever it is read, a resize splits the output
 * where it happened (what came before is drawn at the old size, what comes
 * after at the new one), and `task_input` can see when the program answered
 * and went quiet instead of always waiting its whole `wait_ms`.
 *
 * Feeding at each read (the first design) drew output that came before a
 * resize at the new size, and gave no event to end a wait on.
 *
 * Drawing costs far more than reading (the built-in screen draws some tens
 * of MiB/s of plain lines, under 2 MiB/s of `yes`), so a flood is not drawn
 * whole: of a piece longer than {@linkcode MAX_DRAWN} characters (the reader
 * fell behind, and hands over what piled up), only the last lines are drawn,
 * after a line that says how much was not. That is at least 800 rows of 80
 * columns, more than a tool's screen and its scrollback keep.
 *
 * A renderer that throws (a bug in it, or in the emulator under it) is not
 * fed again: from then on each read says why and shows the raw output
 * instead (see {@linkcode ScreenFeed.screen}), rather than a screen that
 * silently stopped changing.
 *
 * @module
 */
import type { BashProcess, BashTerminalSize } from "../seam/mod.ts";
import type { BashTaskOutput } from "./render/mod.ts";
import type { ScreenRenderer } from "./screen.ts";
import { INPUT_QUIET_MS } from "./schemas/mod.ts";
import { messageOf } from "../seam/message.ts";

/**
 * What a terminal in its usual (canonical, echoing) mode shows of `input`:
 * Enter as a new line, other control keys as `^X`, the rest as typed.
 */
export function echoOf(input: string): string {
  let echo = "";
  for (const char of input) {
    const code = char.codePointAt(0) as number;
    if (char === "\r") echo += "\r\n";
    else if (char === "\t") echo += char;
    else if (code < 0x20) echo += `^${String.fromCharCode(code + 64)}`;
    else if (code === 0x7f) echo += "^?";
    else echo += char;
  }
  return echo;
}

/**
 * The most characters of one piece of output drawn: the engine's default
 * output window, as much as a read held when the screen was fed at reads.
 */
export const MAX_DRAWN = 64_000;

/** Gets each piece of stdout fed to the screen, then `null` once the output ended. */
type Listener = (text: string | null) => void;

/** See the module's header. */
export class ScreenFeed {
  readonly #process: BashProcess;
  readonly #screen: ScreenRenderer;
  readonly #listeners = new Set<Listener>();
  #ended = false;
  /** Why the renderer is no longer used, once it threw. */
  #failure: string | undefined;
  /** Settles once the output ended and all of it was fed to the screen. */
  readonly fed: Promise<void>;

  constructor(process: BashProcess, screen: ScreenRenderer) {
    this.#process = process;
    this.#screen = screen;
    this.fed = this.#feed();
  }

  async #feed(): Promise<void> {
    try {
      for await (const event of this.#process.output()) {
        if (!("text" in event) || event.stream !== "stdout" || event.text === "") continue;
        if (this.#failure === undefined) {
          try {
            this.#draw(event.text);
          } catch (error) {
            this.#fail(error);
          }
        }
        for (const listener of this.#listeners) listener(event.text);
      }
    } catch {
      // The output could not be read to its end: the screen shows what came, and the
      // read's markers say what went wrong.
    } finally {
      this.#ended = true;
      for (const listener of this.#listeners) listener(null);
    }
  }

  /** Draws `text`, or of a longer piece than {@linkcode MAX_DRAWN} its last lines (see the header). */
  #draw(text: string): void {
    if (text.length <= MAX_DRAWN) return this.#screen.write(text);
    const line = text.indexOf("\n", text.length - MAX_DRAWN);
    const from = line === -1 ? text.length - MAX_DRAWN : line + 1;
    this.#screen.write(`\r\n[... ${from} characters of output not drawn ...]\r\n`);
    this.#screen.write(text.slice(from));
  }

  /** Keeps why the renderer failed (the first reason), and returns it; it is not fed again. */
  #fail(error: unknown): string {
    this.#failure ??= `the screen renderer failed: ${messageOf(error)}`;
    return this.#failure;
  }

  /**
   * The screen now (see {@linkcode ScreenRenderer.snapshot}) as `screen`, or,
   * once the renderer threw (in a write or here), why there is none as
   * `screenError`. A snapshot that is a promise rejects with that reason as
   * its message when the renderer fails while drawing it.
   */
  screen(): Pick<BashTaskOutput, "screen" | "screenError"> {
    if (this.#failure !== undefined) return { screenError: this.#failure };
    try {
      const snapshot = this.#screen.snapshot();
      if (!(snapshot instanceof Promise)) return { screen: snapshot };
      return {
        screen: snapshot.catch((error) => {
          throw new Error(this.#fail(error));
        }),
      };
    } catch (error) {
      return { screenError: this.#fail(error) };
    }
  }

  /**
   * Resizes the screen, then the process's terminal, from `previous` to
   * `size`; the screen goes back to `previous` when the terminal could not
   * be resized (the error is rethrown). The screen goes first: the program
   * redraws as soon as its terminal changed, and that redraw must be drawn
   * at the new size.
   */
  async resize(size: BashTerminalSize, previous: BashTerminalSize): Promise<void> {
    this.#screen.resize(size.rows, size.cols);
    try {
      await this.#process.resize(size.rows, size.cols);
    } catch (error) {
      this.#screen.resize(previous.rows, previous.cols);
      throw error;
    }
  }

  /**
   * Resolves once the program answered `input` and its output stayed quiet
   * for {@linkcode INPUT_QUIET_MS}, once the output ended, once `waitMs` passed
   * or once `signal` aborts, whichever comes first. Call it before typing
   * `input`: output that is only the terminal's echo of `input` is no answer
   * (a command that takes time echoes at once), anything else is.
   */
  awaitAnswer(input: string, waitMs: number, signal?: AbortSignal): Promise<void> {
    const echo = echoOf(input);
    return new Promise<void>((resolve) => {
      let seen = "";
      let answered = false;
      let quiet: ReturnType<typeof setTimeout> | undefined;
      const finish = (): void => {
        clearTimeout(bound);
        clearTimeout(quiet);
        this.#listeners.delete(listener);
        signal?.removeEventListener("abort", finish);
        resolve();
      };
      const listener: Listener = (text) => {
        if (text === null) return finish();
        if (!answered) {
          seen += text;
          answered = !echo.startsWith(seen);
          if (!answered) return;
        }
        clearTimeout(quiet);
        quiet = setTimeout(finish, INPUT_QUIET_MS);
      };
      const bound = setTimeout(finish, waitMs);
      this.#listeners.add(listener);
      signal?.addEventListener("abort", finish, { once: true });
      if (this.#ended || signal?.aborted) finish();
    });
  }
}
