// CSI (ESC [ or the C1 byte), OSC (ESC ] ... BEL or ST), then any other
// two-byte escape, including charset selections such as ESC ( B.
const ESCAPE_SEQUENCE =
  // deno-lint-ignore no-control-regex
  /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?|\x1b[()*+][ -~]|\x1b[ -~]/g;
// C0 controls other than tab, newline and carriage return, and DEL.
// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

/**
 * Cleans terminal output for a model: removes ANSI escape sequences (colors,
 * cursor moves, titles, hyperlinks) and other control bytes, turns CRLF into
 * LF, and applies carriage-return overwrites the way a progress bar means
 * them: within a line, the last non-empty redraw wins. Tabs and newlines
 * stay. Spill files are untouched; they keep the raw bytes.
 *
 * @example
 * ```ts
 * import { stripTerminalControls } from "./_terminal.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(stripTerminalControls("\x1b[31mred\x1b[0m\n"), "red\n");
 * assert.equal(stripTerminalControls(" 10%\r 50%\r100%\ndone\r\n"), "100%\ndone\n");
 * ```
 */
export function stripTerminalControls(text: string): string {
  const plain = text.replace(ESCAPE_SEQUENCE, "").replace(CONTROL, "").replace(/\r\n/g, "\n");
  if (!plain.includes("\r")) return plain;
  return plain.split("\n").map(lastRedraw).join("\n");
}

function lastRedraw(line: string): string {
  const redraws = line.split("\r");
  for (let i = redraws.length - 1; i >= 0; i--) {
    const redraw = redraws[i];
    if (redraw) return redraw;
  }
  return "";
}
