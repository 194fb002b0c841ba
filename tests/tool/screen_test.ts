import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { TextScreen } from "../../tool/mod.ts";

// Output of real programs in a 24x80 terminal, captured through
// LocalBashExecutor.start({ terminal }) with TERM=xterm-256color.
const captured: Record<string, string> = JSON.parse(
  readFileSync(new URL("./screen/captured.json", import.meta.url), "utf8"),
);

function screenOf(text: string, rows = 24, cols = 80): TextScreen {
  const screen = new TextScreen(rows, cols);
  screen.write(text);
  return screen;
}

describe("TextScreen on captured programs", () => {
  it("vi: its alternate screen shows the typed text and the ~ rows; leaving it restores the main screen", () => {
    const text = captured.vi as string;
    const quit = text.indexOf(":wq");
    const screen = screenOf(text.slice(0, quit));
    const during = screen.snapshot();
    assert.equal(during.alternate, true);
    assert.equal(during.lines[0], "hello from vi");
    assert.deepEqual(during.lines.slice(1), new Array(22).fill("~"));
    screen.write(text.slice(quit));
    assert.deepEqual(screen.snapshot(), {
      lines: [],
      scrolledOff: [],
      droppedLines: 0,
      alternate: false,
    });
  });

  it("top: the screen names itself and holds the latest redraw, with no escape codes left", () => {
    const text = captured.top as string;
    const last = text.lastIndexOf("top - ");
    const screen = screenOf(text.slice(0, last + 200));
    const { lines } = screen.snapshot();
    assert.match(lines[0] ?? "", /^top - \d\d:\d\d:\d\d up .*load average: /);
    assert.equal(lines[0], text.slice(last).split("\x1b")[0]);
    assert.match(lines[1] ?? "", /^Tasks: +\d+ total, /);
    assert.match(lines[6] ?? "", /^ +PID USER +PR +NI +VIRT +RES/);
    assert.ok(lines.length <= 24);
    assert.ok(!lines.join("\n").includes("\x1b"), "no escape sequence left");
  });

  it("a progress bar redrawn with carriage returns shows its last state", () => {
    assert.deepEqual(screenOf(captured.progress as string).snapshot().lines, [
      "downloading 100% [##########]",
      "done",
    ]);
  });

  it("less: the pager's second page, then the main screen again once it quits", () => {
    const text = captured.less as string;
    const leave = text.indexOf("\x1b[?1049l");
    const screen = screenOf(text.slice(0, leave));
    const during = screen.snapshot();
    assert.equal(during.alternate, true);
    assert.deepEqual(during.lines, Array.from({ length: 23 }, (_, i) => `${i + 24}`));
    screen.write(text.slice(leave));
    assert.deepEqual(screen.snapshot().lines, []);
  });

  it("python3's REPL reads as typed", () => {
    assert.deepEqual(screenOf(captured.python as string).snapshot().lines, [
      ">>> 1+1",
      "2",
      ">>> exit()",
    ]);
  });
});

describe("TextScreen", () => {
  it("wraps at the last column only when the next character comes", () => {
    const screen = screenOf("abcde", 3, 5);
    assert.deepEqual(screen.snapshot().lines, ["abcde"]);
    screen.write("\r\nf");
    assert.deepEqual(screen.snapshot().lines, ["abcde", "f"]);
    screen.write("\rghijkl");
    assert.deepEqual(screen.snapshot().lines, ["abcde", "ghijk", "l"]);
  });

  it("keeps what scrolled off, reports each row once, and bounds it", () => {
    const screen = new TextScreen(2, 10, 3);
    screen.write("1\r\n2\r\n3\r\n4\r\n5\r\n6");
    const first = screen.snapshot();
    assert.deepEqual(first.lines, ["5", "6"]);
    assert.deepEqual(first.scrolledOff, ["2", "3", "4"]);
    assert.equal(first.droppedLines, 1);
    screen.write("\r\n7");
    // "5" was on the screen at the last snapshot, unchanged: not repeated.
    assert.deepEqual(screen.snapshot().scrolledOff, []);
    // "6" leaves as it was shown, "7" changed since: only "7x" is new.
    screen.write("x\r\n8\r\n9");
    assert.deepEqual(screen.snapshot(), {
      lines: ["8", "9"],
      scrolledOff: ["7x"],
      droppedLines: 0,
      alternate: false,
    });
  });

  it("a clear of the main screen moves unread rows to the scrollback; CSI 3 J erases nothing kept", () => {
    const screen = screenOf("unread\r\nrows", 4, 20);
    screen.write("\x1b[H\x1b[2J\x1b[3J$ ");
    assert.deepEqual(screen.snapshot(), {
      lines: ["$"],
      scrolledOff: ["unread", "rows"],
      droppedLines: 0,
      alternate: false,
    });
  });

  it("the alternate screen adds nothing to the scrollback", () => {
    const screen = screenOf("main\r\n", 2, 10);
    screen.snapshot();
    screen.write("\x1b[?1049h\x1b[Ha\r\nb\r\nc\r\nd");
    const during = screen.snapshot();
    assert.deepEqual([during.lines, during.scrolledOff, during.alternate], [["c", "d"], [], true]);
    screen.write("\x1b[?1049l");
    assert.deepEqual(screen.snapshot().lines, ["main"]);
  });

  it("reads a sequence split across writes", () => {
    const screen = new TextScreen(3, 10);
    for (const piece of ["ab", "\x1b", "[", "2", "D", "X", "\x1b]0;ti", "tle\x07", "!"]) {
      screen.write(piece);
    }
    // ESC [ 2 D went back over "ab"; the title is dropped.
    assert.deepEqual(screen.snapshot().lines, ["X!"]);
  });

  it("moves the cursor, erases and edits lines and characters", () => {
    const screen = new TextScreen(4, 10);
    screen.write("0123456789\x1b[2;3Hxy\x1b[1;5H\x1b[K\x1b[3;1Hline3\x1b[1G\x1b[2P");
    assert.deepEqual(screen.snapshot().lines, ["0123", "  xy", "ne3"]);
    screen.write("\x1b[2;1H\x1b[L");
    assert.deepEqual(screen.snapshot().lines, ["0123", "", "  xy", "ne3"]);
    screen.write("\x1b[1;1H\x1b[M\x1b[2@>");
    assert.deepEqual(screen.snapshot().lines, [">", "  xy", "ne3"]);
  });

  it("scrolls only within the scrolling region, and reverse index scrolls it down", () => {
    const screen = new TextScreen(4, 10);
    screen.write("head\r\nb\r\nc\r\nfoot\x1b[2;3r\x1b[3;1H\r\nd");
    assert.deepEqual(screen.snapshot().lines, ["head", "c", "d", "foot"]);
    screen.write("\x1b[2;1H\x1bMup");
    assert.deepEqual(screen.snapshot().lines, ["head", "up", "c", "foot"]);
  });

  it("gives a wide character two cells, as the programs that lay out the screen count them", () => {
    const screen = new TextScreen(3, 6);
    // CJK and emoji: two cells each, so column 3 is after the first character.
    screen.write("漢x\x1b[3GY\r\n😀ab\x1b[4GZ");
    assert.deepEqual(screen.snapshot().lines, ["漢Y", "😀aZ"]);
    // Two wide characters and two narrow ones fill six columns; the next one wraps.
    screen.write("\x1b[3;1H漢字ab");
    assert.deepEqual(screen.snapshot().lines, ["漢Y", "😀aZ", "漢字ab"]);
    screen.write("c");
    assert.deepEqual(screen.snapshot().lines, ["😀aZ", "漢字ab", "c"]);
  });

  it("wraps a wide character that does not fit in the last column, leaving it blank", () => {
    const screen = new TextScreen(3, 6);
    screen.write("abcde字f");
    assert.deepEqual(screen.snapshot().lines, ["abcde", "字f"]);
  });

  it("blanks the other half of a wide character written over or erased in part", () => {
    const screen = new TextScreen(4, 10);
    // The second half of 字, then the first half of 漢, are overwritten.
    screen.write("字|\x1b[2Gx\r\n|漢|\x1b[2Gy");
    // An erase to the cursor ends on the first half of 漢.
    screen.write("\r\n|漢|\x1b[2G\x1b[1K");
    // Deleting the first half of 漢 leaves the second.
    screen.write("\r\n|漢|\x1b[2G\x1b[P");
    assert.deepEqual(screen.snapshot().lines, [" x|", "|y |", "   |", "| |"]);
  });

  it("joins a mark that takes no cell to the character before it", () => {
    const screen = new TextScreen(2, 10);
    screen.write("e\u0301x\x1b[2GY");
    assert.deepEqual(screen.snapshot().lines, ["e\u0301Y"]);
  });

  it("resizes: rows below the new bottom scroll off, long rows are cut", () => {
    const screen = screenOf("one\r\ntwo\r\nthree-long", 3, 20);
    screen.snapshot();
    screen.resize(2, 5);
    screen.write("!");
    const after = screen.snapshot();
    // The cursor stays in the last column, where "!" lands.
    assert.deepEqual(after.lines, ["two", "thre!"]);
    assert.deepEqual(after.scrolledOff, []);
  });
});
