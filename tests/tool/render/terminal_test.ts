import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { stripTerminalControls } from "../../../tool/render/mod.ts";

describe("stripTerminalControls", () => {
  const table: [string, string, string][] = [
    ["plain text", "a\tb\nc\n", "a\tb\nc\n"],
    ["SGR colors", "\x1b[1;31merror\x1b[0m: \x1b[38;5;12mx\x1b[m\n", "error: x\n"],
    ["cursor moves and erase", "\x1b[2K\x1b[1Gline\x1b[?25l\x1b[?25h", "line"],
    ["OSC title (BEL)", "\x1b]0;title\x07text", "text"],
    ["OSC 8 hyperlink (ST)", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"],
    ["charset selection", "\x1b(Babc", "abc"],
    ["C1 CSI", "\x9b31mred", "red"],
    ["other control bytes", "a\x07b\x00c\x08d\x7f", "abcd"],
    ["CRLF line ends", "one\r\ntwo\r\n", "one\ntwo\n"],
    ["progress redraws", "  0%\r 50%\r100%\nnext\n", "100%\nnext\n"],
    ["trailing carriage return", "done\r\n", "done\n"],
    ["redraw then clear", "working\r\x1b[K", "working"],
    ["a lone CR inside a line keeps the last redraw", "abc\rX", "X"],
  ];
  for (const [name, input, expected] of table) {
    it(name, () => assert.equal(stripTerminalControls(input), expected));
  }

  it("keeps non-ASCII text", () => {
    assert.equal(stripTerminalControls("héllo 世界 🎉\n"), "héllo 世界 🎉\n");
  });

  it("does not swallow text after an unterminated OSC", () => {
    assert.equal(stripTerminalControls("\x1b]0;title\nnext line\n"), "\nnext line\n");
  });
});
