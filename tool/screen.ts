import { cellWidth } from "./cell_width.ts";

/**
 * What a person would see of a terminal: a {@linkcode ScreenRenderer} turns
 * a terminal command's output (escape sequences, carriage returns, cursor
 * moves, redraws) into the text of its screen, and keeps the lines that
 * scrolled off the top. {@linkcode TextScreen} is the small built-in one
 * (no dependency); a full emulator can stand in for it behind the same
 * interface, as `@shellseam/bash/xterm` does with `@xterm/headless` on npm.
 *
 * @module
 */

/**
 * A terminal's screen as text, at one moment (see {@linkcode ScreenRenderer.snapshot}).
 *
 * @example
 * ```ts
 * import type { ScreenSnapshot } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const snapshot: ScreenSnapshot = {
 *   lines: [">>> 1+1", "2", ">>>"],
 *   scrolledOff: [],
 *   droppedLines: 0,
 *   alternate: false,
 * };
 * assert.equal(snapshot.lines.join("\n"), ">>> 1+1\n2\n>>>");
 * ```
 */
export interface ScreenSnapshot {
  /** The screen's rows, trailing spaces removed, without the blank rows at its bottom. */
  lines: string[];
  /**
   * Rows that scrolled off the top of the screen (or that a clear of the whole
   * screen moved away) since the previous snapshot, oldest first, except
   * those the previous snapshot showed unchanged.
   */
  scrolledOff: string[];
  /** Rows that scrolled off since the previous snapshot but were not kept (past the bound). */
  droppedLines: number;
  /** True while a full-screen program (`vi`, `less`, `top`) shows its alternate screen. */
  alternate: boolean;
}

/**
 * Turns a terminal's output into its screen text. It is fed every piece of
 * output in order, as decoded text (a sequence may be split across pieces).
 * `write` only queues: an emulator may parse later (`@xterm/headless` does),
 * so `snapshot` may return a promise, which resolves with the screen once
 * everything written before the call is drawn; the tools await it. A
 * renderer that draws as it is written, such as {@linkcode TextScreen},
 * returns the screen itself.
 *
 * @example A renderer that keeps only the last line it was given
 * ```ts
 * import type { ScreenRenderer, ScreenSnapshot } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * class LastLine implements ScreenRenderer {
 *   #text = "";
 *   write(text: string): void {
 *     this.#text += text;
 *   }
 *   resize(): void {}
 *   snapshot(): ScreenSnapshot {
 *     const line = this.#text.split("\n").at(-1) ?? "";
 *     return { lines: [line], scrolledOff: [], droppedLines: 0, alternate: false };
 *   }
 * }
 * const screen: ScreenRenderer = new LastLine();
 * screen.write("a\nb");
 * assert.deepEqual((await screen.snapshot()).lines, ["b"]);
 * ```
 */
export interface ScreenRenderer {
  /** Feeds the next piece of output. */
  write(text: string): void;
  /** The terminal's new size, from after what was written so far (the program redraws after it). */
  resize(rows: number, cols: number): void;
  /**
   * The screen once what was written before is drawn (a promise for a
   * renderer that parses later); what scrolled off is counted from the
   * previous snapshot.
   */
  snapshot(): ScreenSnapshot | Promise<ScreenSnapshot>;
}

/** One row of the screen, and whether the last snapshot showed it as it is. */
interface Row {
  cells: string[];
  seen: boolean;
}

/** A scrolled-off row, as text, and whether a snapshot showed it. */
interface Scrolled {
  text: string;
  seen: boolean;
}

type ParserState = "ground" | "escape" | "csi" | "osc" | "string" | "charset";

/**
 * The built-in {@linkcode ScreenRenderer}: a small VT100/xterm subset that
 * covers what line editors, REPLs, progress bars and full-screen programs
 * use. It keeps:
 * 1. Printing with line wrap at the last column, CR, LF, backspace and tab.
 * 2. Cursor moves (CSI A B C D E F G H f d, ESC 7 and 8, CSI s and u),
 *    index and reverse index, a scrolling region (CSI r), insert and delete
 *    of lines and characters (CSI L M @ P X) and scrolling (CSI S T).
 * 3. Erasing in the line (CSI K) and the screen (CSI J). A clear of the whole
 *    main screen (CSI 2 J, which `clear` sends) moves what it showed into the
 *    scrollback, as VTE-based terminals do, so a clear hides nothing unread;
 *    CSI 3 J (clear the scrollback) is ignored for the same reason.
 * 4. The alternate screen (CSI ? 1049, 1047 and 47 h and l), which never
 *    adds to the scrollback; leaving it shows the main screen again.
 * 5. Wide characters (CJK, most emoji) take two cells and marks that join
 *    the character before them (combining accents) none, as a program counts
 *    them; writing over half of a wide character blanks the other half.
 * Colours and other attributes, titles (OSC), and device queries are read and
 * dropped. The scrollback keeps the last `maxScrollback` rows.
 *
 * @example A progress bar redrawn with carriage returns, then a clear
 * ```ts
 * import { TextScreen } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const screen = new TextScreen(24, 80);
 * screen.write("download  10%\rdownload  50%\rdownload 100%\r\ndone\r\n");
 * assert.deepEqual(screen.snapshot().lines, ["download 100%", "done"]);
 * screen.write("\x1b[H\x1b[2Jprompt$ ");
 * const after = screen.snapshot();
 * assert.deepEqual(after.lines, ["prompt$"]);
 * // The cleared rows were shown already, so they are not repeated.
 * assert.deepEqual(after.scrolledOff, []);
 * ```
 */
export class TextScreen implements ScreenRenderer {
  #rows: number;
  #cols: number;
  readonly #maxScrollback: number;
  #main: Row[];
  #alternate: Row[] | null = null;
  #row = 0;
  #col = 0;
  #wrapPending = false;
  #saved = { row: 0, col: 0 };
  #savedMain = { row: 0, col: 0 };
  #top = 0;
  #bottom: number;
  #state: ParserState = "ground";
  #params = "";
  #stringEscape = false;
  readonly #scrollback: Scrolled[] = [];
  /** Rows of the scrollback not yet counted by a snapshot (the last of them are kept). */
  #fresh = 0;

  /** A blank screen of `rows` by `cols` cells that keeps `maxScrollback` scrolled-off rows. */
  constructor(rows: number, cols: number, maxScrollback = 1000) {
    this.#rows = Math.max(1, Math.floor(rows));
    this.#cols = Math.max(1, Math.floor(cols));
    this.#maxScrollback = Math.max(0, Math.floor(maxScrollback));
    this.#main = this.#blankRows(this.#rows);
    this.#bottom = this.#rows - 1;
  }

  write(text: string): void {
    for (const char of text) this.#feed(char);
  }

  resize(rows: number, cols: number): void {
    const newRows = Math.max(1, Math.floor(rows));
    const newCols = Math.max(1, Math.floor(cols));
    const fit = (screen: Row[], main: boolean): Row[] => {
      const fitted = screen.map((row) => {
        const cells = row.cells.slice(0, newCols);
        while (cells.length < newCols) cells.push(" ");
        mendWide(cells);
        return { cells, seen: row.seen && rowText({ cells, seen: true }) === rowText(row) };
      });
      // Rows beyond the new bottom scroll off the top, as the cursor's row stays on screen.
      while (fitted.length > newRows) {
        const gone = fitted.shift() as Row;
        if (main) this.#pushScrollback(gone);
        this.#row = Math.max(0, this.#row - 1);
      }
      while (fitted.length < newRows) fitted.push(this.#blankRow(newCols));
      return fitted;
    };
    this.#main = fit(this.#main, this.#alternate === null);
    if (this.#alternate !== null) this.#alternate = fit(this.#alternate, false);
    this.#rows = newRows;
    this.#cols = newCols;
    this.#top = 0;
    this.#bottom = newRows - 1;
    this.#row = Math.min(this.#row, newRows - 1);
    this.#col = Math.min(this.#col, newCols - 1);
    this.#wrapPending = false;
  }

  snapshot(): ScreenSnapshot {
    const fresh = Math.min(this.#fresh, this.#scrollback.length);
    const droppedLines = this.#fresh - fresh;
    const scrolledOff = this.#scrollback.slice(this.#scrollback.length - fresh)
      .filter((row) => !row.seen).map((row) => row.text);
    this.#fresh = 0;
    const screen = this.#screen();
    for (const row of screen) row.seen = true;
    const lines = screen.map(rowText);
    while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    return { lines, scrolledOff, droppedLines, alternate: this.#alternate !== null };
  }

  #screen(): Row[] {
    return this.#alternate ?? this.#main;
  }

  #blankRow(cols = this.#cols): Row {
    return { cells: new Array<string>(cols).fill(" "), seen: false };
  }

  #blankRows(count: number): Row[] {
    return Array.from({ length: count }, () => this.#blankRow());
  }

  #pushScrollback(row: Row): void {
    if (this.#maxScrollback === 0) {
      this.#fresh++;
      return;
    }
    this.#scrollback.push({ text: rowText(row), seen: row.seen });
    this.#fresh++;
    if (this.#scrollback.length > this.#maxScrollback) this.#scrollback.shift();
  }

  #feed(char: string): void {
    switch (this.#state) {
      case "ground":
        return this.#ground(char);
      case "escape":
        return this.#escape(char);
      case "csi":
        return this.#csi(char);
      case "charset":
        this.#state = "ground";
        return;
      case "osc":
      case "string":
        // Ends at BEL (OSC only) or ESC \.
        if (char === "\x07" && this.#state === "osc") this.#state = "ground";
        else if (this.#stringEscape) {
          this.#stringEscape = false;
          if (char === "\\") this.#state = "ground";
        } else if (char === "\x1b") this.#stringEscape = true;
        return;
    }
  }

  #ground(char: string): void {
    const code = char.codePointAt(0) as number;
    if (code === 0x1b) {
      this.#state = "escape";
      return;
    }
    if (code === 0x9b) {
      this.#startCsi();
      return;
    }
    if (code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0)) {
      if (char === "\r") {
        this.#col = 0;
        this.#wrapPending = false;
      } else if (char === "\n" || char === "\v" || char === "\f") this.#lineFeed();
      else if (char === "\b") {
        if (this.#col > 0) this.#col--;
        this.#wrapPending = false;
      } else if (char === "\t") {
        this.#col = Math.min(this.#cols - 1, (Math.floor(this.#col / 8) + 1) * 8);
      }
      return;
    }
    this.#print(char);
  }

  #print(char: string): void {
    const width = cellWidth(char.codePointAt(0) as number);
    if (width === 0) return this.#join(char);
    const wide = width === 2 && this.#cols > 1;
    // A wide character that does not fit in the last column leaves it blank and wraps, as xterm does.
    if (this.#wrapPending || (wide && this.#col === this.#cols - 1)) {
      this.#col = 0;
      this.#lineFeed();
      this.#wrapPending = false;
    }
    const row = this.#screen()[this.#row] as Row;
    const cells = row.cells;
    const end = this.#col + (wide ? 2 : 1);
    // Overwriting half of a wide character blanks its other half.
    if (cells[this.#col] === "") cells[this.#col - 1] = " ";
    if (cells[end] === "") cells[end] = " ";
    cells[this.#col] = char;
    if (wide) cells[this.#col + 1] = "";
    row.seen = false;
    if (end === this.#cols) {
      this.#col = end - 1;
      this.#wrapPending = true;
    } else this.#col = end;
  }

  /** A mark that takes no cell (a combining accent, a joiner) joins the character before the cursor. */
  #join(mark: string): void {
    const row = this.#screen()[this.#row] as Row;
    let at = this.#wrapPending ? this.#col : this.#col - 1;
    if (row.cells[at] === "") at--;
    if (at < 0) return;
    row.cells[at] += mark;
    row.seen = false;
  }

  #escape(char: string): void {
    this.#state = "ground";
    switch (char) {
      case "[":
        return this.#startCsi();
      case "]":
        this.#state = "osc";
        this.#stringEscape = false;
        return;
      case "P":
      case "X":
      case "^":
      case "_":
        this.#state = "string";
        this.#stringEscape = false;
        return;
      case "(":
      case ")":
      case "*":
      case "+":
        this.#state = "charset";
        return;
      case "7":
        this.#saved = { row: this.#row, col: this.#col };
        return;
      case "8":
        this.#restore(this.#saved);
        return;
      case "D":
        return this.#lineFeed();
      case "E":
        this.#col = 0;
        return this.#lineFeed();
      case "M":
        return this.#reverseIndex();
      case "c":
        return this.#reset();
    }
  }

  #startCsi(): void {
    this.#state = "csi";
    this.#params = "";
  }

  #csi(char: string): void {
    const code = char.codePointAt(0) as number;
    if (code >= 0x20 && code <= 0x3f) {
      this.#params += char;
      return;
    }
    this.#state = "ground";
    if (code < 0x40 || code > 0x7e) return;
    const raw = this.#params;
    const marker = /^[?>=<]/.test(raw) ? raw.charAt(0) : "";
    const numbers = raw.slice(marker.length).replace(/[ -/]+$/, "").split(";").map((part) =>
      part === "" ? 0 : Number.parseInt(part, 10) || 0
    );
    const n = (index: number, fallback = 1): number => {
      const value = numbers[index] ?? 0;
      return value === 0 ? fallback : value;
    };
    if (marker === "?") {
      if (char === "h" || char === "l") this.#privateModes(numbers, char === "h");
      return;
    }
    if (marker !== "" || /[ -/]/.test(raw)) return;
    this.#wrapPending = false;
    switch (char) {
      case "A":
        this.#row = Math.max(this.#row >= this.#top ? this.#top : 0, this.#row - n(0));
        return;
      case "B":
        this.#row = Math.min(
          this.#row <= this.#bottom ? this.#bottom : this.#rows - 1,
          this.#row + n(0),
        );
        return;
      case "C":
        this.#col = Math.min(this.#cols - 1, this.#col + n(0));
        return;
      case "D":
        this.#col = Math.max(0, this.#col - n(0));
        return;
      case "E":
        this.#row = Math.min(this.#rows - 1, this.#row + n(0));
        this.#col = 0;
        return;
      case "F":
        this.#row = Math.max(0, this.#row - n(0));
        this.#col = 0;
        return;
      case "G":
      case "`":
        this.#col = Math.min(this.#cols - 1, n(0) - 1);
        return;
      case "H":
      case "f":
        this.#row = Math.min(this.#rows - 1, n(0) - 1);
        this.#col = Math.min(this.#cols - 1, n(1) - 1);
        return;
      case "d":
        this.#row = Math.min(this.#rows - 1, n(0) - 1);
        return;
      case "J":
        return this.#eraseDisplay(numbers[0] ?? 0);
      case "K":
        return this.#eraseLine(numbers[0] ?? 0);
      case "L":
        return this.#editLines(n(0), "down");
      case "M":
        return this.#editLines(n(0), "up");
      case "@":
        return this.#editChars(n(0), "insert");
      case "P":
        return this.#editChars(n(0), "delete");
      case "X":
        return this.#editChars(n(0), "erase");
      case "S":
        return this.#scrollUp(n(0));
      case "T":
        return this.#scrollDown(n(0));
      case "r": {
        const top = n(0) - 1;
        const bottom = Math.min(this.#rows, n(1, this.#rows)) - 1;
        if (top < bottom) {
          this.#top = top;
          this.#bottom = bottom;
          this.#row = 0;
          this.#col = 0;
        }
        return;
      }
      case "s":
        this.#saved = { row: this.#row, col: this.#col };
        return;
      case "u":
        this.#restore(this.#saved);
        return;
    }
  }

  #privateModes(modes: number[], set: boolean): void {
    for (const mode of modes) {
      if (mode !== 1049 && mode !== 1047 && mode !== 47) continue;
      if (set && this.#alternate === null) {
        if (mode === 1049) this.#savedMain = { row: this.#row, col: this.#col };
        this.#alternate = this.#blankRows(this.#rows);
      } else if (!set && this.#alternate !== null) {
        this.#alternate = null;
        for (const row of this.#main) row.seen = false;
        if (mode === 1049) this.#restore(this.#savedMain);
      }
      this.#top = 0;
      this.#bottom = this.#rows - 1;
    }
  }

  #restore(to: { row: number; col: number }): void {
    this.#row = Math.min(this.#rows - 1, to.row);
    this.#col = Math.min(this.#cols - 1, to.col);
    this.#wrapPending = false;
  }

  #reset(): void {
    this.#alternate = null;
    this.#eraseDisplay(2);
    this.#row = 0;
    this.#col = 0;
    this.#top = 0;
    this.#bottom = this.#rows - 1;
  }

  #lineFeed(): void {
    if (this.#row === this.#bottom) this.#scrollUp(1);
    else if (this.#row < this.#rows - 1) this.#row++;
  }

  #reverseIndex(): void {
    if (this.#row === this.#top) this.#scrollDown(1);
    else if (this.#row > 0) this.#row--;
  }

  /** Scrolls the region up: its top rows leave (to the scrollback, from the main screen's top). */
  #scrollUp(count: number): void {
    const gone = this.#shiftRegion(this.#top, count, "up");
    if (this.#alternate === null && this.#top === 0) {
      for (const row of gone) this.#pushScrollback(row);
    }
  }

  #scrollDown(count: number): void {
    this.#shiftRegion(this.#top, count, "down");
  }

  /** Inserts (CSI L, `down`) or deletes (CSI M, `up`) rows at the cursor's, within the region. */
  #editLines(count: number, shift: "up" | "down"): void {
    if (this.#row < this.#top || this.#row > this.#bottom) return;
    this.#shiftRegion(this.#row, count, shift);
    this.#col = 0;
  }

  /**
   * Shifts the rows from `at` to the region's bottom by `count` rows: `up`
   * deletes rows at `at` (returned, in order) and adds blank ones at the
   * bottom; `down` inserts blank rows at `at` and drops the bottom ones.
   */
  #shiftRegion(at: number, count: number, shift: "up" | "down"): Row[] {
    const screen = this.#screen();
    const up = shift === "up";
    const gone: Row[] = [];
    for (let i = 0; i < Math.min(count, this.#bottom - at + 1); i++) {
      gone.push(...screen.splice(up ? at : this.#bottom, 1));
      screen.splice(up ? this.#bottom : at, 0, this.#blankRow());
    }
    return gone;
  }

  #editChars(count: number, how: "insert" | "delete" | "erase"): void {
    const row = this.#screen()[this.#row] as Row;
    const cells = row.cells;
    const n = Math.min(count, this.#cols - this.#col);
    if (how === "insert") {
      cells.splice(this.#col, 0, ...new Array<string>(n).fill(" "));
      cells.length = this.#cols;
    } else if (how === "delete") {
      cells.splice(this.#col, n);
      while (cells.length < this.#cols) cells.push(" ");
    } else cells.fill(" ", this.#col, this.#col + n);
    mendWide(cells);
    row.seen = false;
  }

  #eraseLine(how: number): void {
    const row = this.#screen()[this.#row] as Row;
    if (how === 0) row.cells.fill(" ", this.#col);
    else if (how === 1) row.cells.fill(" ", 0, this.#col + 1);
    else if (how === 2) row.cells.fill(" ");
    mendWide(row.cells);
    row.seen = false;
  }

  #eraseDisplay(how: number): void {
    const screen = this.#screen();
    if (how === 0) {
      this.#eraseLine(0);
      for (let i = this.#row + 1; i < this.#rows; i++) screen[i] = this.#blankRow();
    } else if (how === 1) {
      this.#eraseLine(1);
      for (let i = 0; i < this.#row; i++) screen[i] = this.#blankRow();
    } else if (how === 2) {
      if (this.#alternate === null) {
        let last = screen.length - 1;
        while (last >= 0 && rowText(screen[last] as Row) === "") last--;
        for (let i = 0; i <= last; i++) this.#pushScrollback(screen[i] as Row);
      }
      for (let i = 0; i < this.#rows; i++) screen[i] = this.#blankRow();
    }
  }
}

function rowText(row: Row): string {
  return row.cells.join("").trimEnd();
}

/** True when `cell` holds a character that takes two cells (the next one is an empty string). */
function isWide(cell: string | undefined): boolean {
  return cell !== undefined && cell !== "" && cellWidth(cell.codePointAt(0) as number) === 2;
}

/**
 * Blanks what an edit left of a wide character (a first half without its
 * second, or a second without its first), as xterm does.
 */
function mendWide(cells: string[]): void {
  for (let i = 0; i < cells.length; i++) {
    if (cells[i] === "" && !isWide(cells[i - 1])) cells[i] = " ";
    else if (i + 1 < cells.length && isWide(cells[i]) && cells[i + 1] !== "") cells[i] = " ";
  }
}
