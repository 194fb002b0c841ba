/**
 * A full terminal emulator for the tools' terminals, on npm only as
 * `@shellseam/bash/xterm`: {@linkcode XtermScreen} renders a terminal task's
 * screen with `@xterm/headless` 6 (xterm.js without a browser), for what the
 * built-in `TextScreen` does not cover (the rest of xterm's sequences,
 * charsets, reflow on resize). `@xterm/headless` is an optional peer
 * dependency of the package, so `npm i @shellseam/bash` alone installs
 * nothing more, and JSR, which has no peer dependencies, does not publish
 * this entry point; the core imports none of it.
 *
 * How it meets the `ScreenRenderer` interface:
 * 1. xterm parses later: `Terminal.write(data, callback)` queues the data
 *    and parses it on a later turn of the event loop, calling `callback`
 *    once it is on the screen. So `snapshot()` returns a promise: it queues
 *    an empty write whose callback reads the screen, which is then exactly
 *    what was written before the call. The tools await it. The other way,
 *    xterm's synchronous `writeSync`, is internal to xterm (not in its
 *    typings) and was rejected for that.
 * 2. The screen keeps `TextScreen`'s contract: the rows that scrolled off are
 *    reported once by the next snapshot (not those the previous snapshot
 *    showed in the same place with the same text), those past the bound are
 *    counted, a clear of the whole screen moves what it showed into the
 *    scrollback (xterm's `scrollOnEraseInDisplay`, as VTE-based terminals
 *    do) and `CSI 3 J` is ignored, so that a clear hides nothing unread. xterm says how far its
 *    scrollback grew (`baseY`) but not how many rows left its full end, so a
 *    marker on the newest row of the scrollback (which only those trims
 *    move) counts them, moved on before it would fall off. One difference
 *    is xterm.js's own: `CSI S` (scroll up) drops the rows it moves off the
 *    top, where `TextScreen` (and xterm itself) keep them in the scrollback.
 *    A resize reflows the rows to the new width (`TextScreen` cuts them),
 *    and the rows it moves into the scrollback are reported as scrolled off.
 * 3. Widths are the ones the programs count, the same table as
 *    `TextScreen`'s (CJK and emoji take two cells; xterm's own Unicode 6
 *    table gives emoji one), given to xterm as a Unicode version provider.
 *
 * @example On Node 22 and 24 with `@xterm/headless` installed, and on Deno
 * ```ts
 * import { xtermScreen } from "@shellseam/bash/xterm";
 * import { createBashTools } from "@shellseam/bash/tool";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * const executor = new LocalBashExecutor({ cwd: "/tmp" });
 * const tasks = new TaskRegistry();
 * try {
 *   const tools = createBashTools({
 *     executor,
 *     tasks,
 *     owner: taskOwner("s"),
 *     enableTerminal: true,
 *     screen: xtermScreen,
 *   });
 *   // It reads first and prints after: the terminal echoes what is typed when it
 *   // comes, so the screen is the same whenever the shell gets to its read.
 *   const started = await tools.bash.execute({
 *     command: "read name; printf 'wide: 漢字\\nhi %s\\n' \"$name\"",
 *     description: "Greet",
 *     terminal: true,
 *   });
 *   const id = started.text.match(/bash-\d+/)?.[0] ?? "";
 *   const reply = await tools.taskInput!.execute({ task_id: id, input: "ada\r", wait_ms: 5000 });
 *   assert.match(reply.text, /\[screen\]\nada\nwide: 漢字\nhi ada\n/);
 * } finally {
 *   await tasks.close();
 *   await executor.close();
 * }
 * ```
 *
 * @module
 */
// deno-lint-ignore-file no-import-prefix -- the peer dependency, named by npm: specifier so that it stays out of the root import map and lock (the build turns it into `@xterm/headless` and its range into the peer dependency's)
// xterm's package is CommonJS, whose names Node's ESM loader cannot list: the default import is its exports.
import xterm from "npm:@xterm/headless@^6.0.0";
import type {
  IBuffer,
  IMarker,
  IUnicodeVersionProvider,
  Terminal,
} from "npm:@xterm/headless@^6.0.0";
import type { BashTerminalSize } from "../seam/mod.ts";
import type { ScreenRenderer, ScreenSnapshot } from "../tool/mod.ts";
import { cellWidth } from "../tool/cell_width.ts";

/**
 * Rows xterm keeps beyond the bound, so that the scrollback has a row for
 * the counting marker that no trim reaches before the next count (2: the
 * newest row, when the marker moves on from the oldest).
 */
const MARKER_ROWS = 2;

/** The scrolled-off rows a tool's terminal keeps, as for the built-in screen. */
const TOOL_SCROLLBACK_ROWS = 500;

/**
 * The cell widths of `tool/cell_width.ts` for xterm. The value
 * `charProperties` returns is laid out as xterm's own providers lay it out
 * (`UnicodeService.createPropertyValue`, which its Unicode 11 addon
 * builds the same way): bit 0 joins the character to the one before it,
 * bits 1 and 2 hold its width, the rest (a grapheme state) stays 0.
 */
const WIDTHS: IUnicodeVersionProvider = {
  version: "shellseam",
  wcwidth: (code) => (code < 0x20 || (code >= 0x7f && code < 0xa0) ? 0 : cellWidth(code)),
  charProperties(code, preceding) {
    let width: number = this.wcwidth(code);
    let join = width === 0 && preceding !== 0;
    if (join) {
      const before = (preceding >> 1) & 3;
      if (before === 0) join = false;
      else width = Math.max(width, before);
    }
    return (width << 1) | (join ? 1 : 0);
  },
};

/**
 * A {@linkcode ScreenRenderer} over `@xterm/headless`: a terminal of `rows`
 * by `cols` that keeps `maxScrollback` scrolled-off rows, as `TextScreen`
 * does. `snapshot()` resolves once everything written before it is drawn.
 *
 * @example On Node 22 and 24 with `@xterm/headless` installed, and on Deno
 * ```ts
 * import { XtermScreen } from "@shellseam/bash/xterm";
 * import assert from "node:assert/strict";
 *
 * const screen = new XtermScreen(3, 20);
 * screen.write("download  10%\rdownload 100%\r\n\x1b[1;32mdone\x1b[0m 漢字!\r\n");
 * assert.deepEqual((await screen.snapshot()).lines, ["download 100%", "done 漢字!"]);
 * ```
 */
export class XtermScreen implements ScreenRenderer {
  readonly #terminal: Terminal;
  readonly #maxScrollback: number;
  /** On the newest row of the main screen's scrollback: its moves count the rows trimmed off. */
  #marker: IMarker | undefined;
  #markerLine = 0;
  /** The main screen's `baseY` at the last count. */
  #baseY = 0;
  /** Rows that went into the scrollback since the last snapshot. */
  #scrolled = 0;
  /** Rows trimmed off the scrollback's far end since the last snapshot. */
  #trimmed = 0;
  /** The main screen as the last snapshot showed it (null when it showed the alternate one). */
  #shown: { top: number; texts: string[] } | null = null;

  /** A blank screen of `rows` by `cols` cells that keeps `maxScrollback` scrolled-off rows. */
  constructor(rows: number, cols: number, maxScrollback = 1000) {
    this.#maxScrollback = Math.max(0, Math.floor(maxScrollback));
    const terminal = new xterm.Terminal({
      rows: Math.max(1, Math.floor(rows)),
      cols: Math.max(1, Math.floor(cols)),
      scrollback: this.#maxScrollback + MARKER_ROWS,
      // The parser, the buffers and the Unicode service are "proposed" API in headless xterm.
      allowProposedApi: true,
      scrollOnEraseInDisplay: true,
    });
    terminal.unicode.register(WIDTHS);
    terminal.unicode.activeVersion = WIDTHS.version;
    // CSI 3 J (clear the scrollback) is ignored: handled here, xterm does nothing more.
    terminal.parser.registerCsiHandler({ final: "J" }, (params) => params[0] === 3);
    terminal.onScroll(() => this.#count());
    terminal.buffer.onBufferChange(() => {
      // Back from the alternate screen, the main one is shown again: none of it was seen.
      this.#shown = null;
      this.#count();
    });
    this.#terminal = terminal;
  }

  write(text: string): void {
    this.#terminal.write(text);
  }

  resize(rows: number, cols: number): void {
    // After what was written so far, as TextScreen does: the callback runs once it is drawn.
    this.#terminal.write("", () => {
      this.#count();
      // The reflow to the new width moves rows (and would move the marker) with no trim: the
      // marker is set again after it, and no row counts as shown.
      this.#marker?.dispose();
      this.#marker = undefined;
      this.#shown = null;
      this.#terminal.resize(Math.max(1, Math.floor(cols)), Math.max(1, Math.floor(rows)));
      this.#count();
    });
  }

  snapshot(): Promise<ScreenSnapshot> {
    return new Promise((resolve) => this.#terminal.write("", () => resolve(this.#take())));
  }

  #take(): ScreenSnapshot {
    this.#count();
    const { active, normal } = this.#terminal.buffer;
    const kept = Math.min(this.#scrolled, this.#maxScrollback, normal.baseY);
    const droppedLines = this.#scrolled - kept;
    const scrolledOff: string[] = [];
    for (let line = normal.baseY - kept; line < normal.baseY; line++) {
      const text = lineText(normal, line);
      if (!this.#wasShown(line + this.#trimmed, text)) scrolledOff.push(text);
    }
    const texts: string[] = [];
    for (let row = 0; row < this.#terminal.rows; row++) {
      texts.push(lineText(active, active.baseY + row));
    }
    this.#shown = active.type === "normal" ? { top: active.baseY, texts } : null;
    this.#scrolled = 0;
    this.#trimmed = 0;
    const lines = texts.slice();
    while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    return { lines, scrolledOff, droppedLines, alternate: active.type === "alternate" };
  }

  /** True when the last snapshot showed the row then at `line` of the main screen as `text`. */
  #wasShown(line: number, text: string): boolean {
    const shown = this.#shown;
    if (shown === null) return false;
    return shown.texts[line - shown.top] === text;
  }

  /**
   * Counts the rows that went into the main screen's scrollback since the
   * last count: its growth, plus the rows trimmed off its far end once
   * full (each moves the marker up a row). It runs on every scroll, so the
   * marker moves at most one row between counts; it moves on to the newest
   * row of the scrollback before it would fall off.
   */
  #count(): void {
    const normal = this.#terminal.buffer.normal;
    const marker = this.#marker;
    const live = marker !== undefined && !marker.isDisposed;
    const trimmed = live ? this.#markerLine - marker.line : 0;
    this.#scrolled += Math.max(0, normal.baseY - this.#baseY + trimmed);
    this.#trimmed += trimmed;
    this.#baseY = normal.baseY;
    if (live && marker.line > 0) {
      this.#markerLine = marker.line;
      return;
    }
    marker?.dispose();
    this.#marker = undefined;
    // A marker goes on the active screen's buffer: on the main one only.
    if (normal.baseY === 0 || this.#terminal.buffer.active.type !== "normal") return;
    this.#marker = this.#terminal.registerMarker(-1 - normal.cursorY);
    this.#markerLine = this.#marker?.line ?? 0;
  }
}

/** The text of row `line` of `buffer`, trailing spaces removed (as TextScreen's rows). */
function lineText(buffer: IBuffer, line: number): string {
  return buffer.getLine(line)?.translateToString(true).trimEnd() ?? "";
}

/**
 * The `screen` option of `createBashTools` for a full emulator: an
 * {@linkcode XtermScreen} of the terminal's size that keeps 500
 * scrolled-off rows, as the built-in screen of a tool's terminal does.
 *
 * @example On Node 22 and 24 with `@xterm/headless` installed, and on Deno
 * ```ts
 * import { xtermScreen } from "@shellseam/bash/xterm";
 * import assert from "node:assert/strict";
 *
 * const screen = xtermScreen({ rows: 24, cols: 80 });
 * screen.write("\x1b[31m😀\x1b[0m|\x1b[H\x1b[2J$ ");
 * const { lines, scrolledOff } = await screen.snapshot();
 * // The emoji takes two cells; the clear moved the row it showed into the scrollback.
 * assert.deepEqual([lines, scrolledOff], [["$"], ["😀|"]]);
 * ```
 */
export function xtermScreen(size: BashTerminalSize): XtermScreen {
  return new XtermScreen(size.rows, size.cols, TOOL_SCROLLBACK_ROWS);
}
