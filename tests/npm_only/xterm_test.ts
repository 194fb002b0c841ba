// The @xterm/headless screen against the built-in TextScreen: the same snapshots (screen,
// scrollback, counts, alternate screen) for the captured programs and the TextScreen cases,
// what only a full emulator draws, and a terminal task through the tools with it. The Node leg
// installs the pinned @xterm/headless beside the package, so this file runs there too, against
// the built `@shellseam/bash/xterm`.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalBashExecutor } from "../../local/mod.ts";
import { taskOwner, TaskRegistry } from "../../tasks/mod.ts";
import {
  type AgentTool,
  createBashTools,
  type ScreenSnapshot,
  TextScreen,
} from "../../tool/mod.ts";
import { XtermScreen, xtermScreen } from "../../npm_only/xterm.ts";

// Output of real programs in a 24x80 terminal (see tests/tool/screen_test.ts).
const captured: Record<string, string> = JSON.parse(
  readFileSync(new URL("../tool/screen/captured.json", import.meta.url), "utf8"),
);

/**
 * Feeds `pieces` to a TextScreen and an XtermScreen of the same size and
 * bound, a snapshot of each after every piece, and returns both lists.
 */
async function bothScreens(
  pieces: string[],
  rows = 24,
  cols = 80,
  maxScrollback = 1000,
): Promise<{ text: ScreenSnapshot[]; xterm: ScreenSnapshot[] }> {
  const text = new TextScreen(rows, cols, maxScrollback);
  const xterm = new XtermScreen(rows, cols, maxScrollback);
  const snapshots = { text: [] as ScreenSnapshot[], xterm: [] as ScreenSnapshot[] };
  for (const piece of pieces) {
    text.write(piece);
    xterm.write(piece);
    snapshots.text.push(text.snapshot());
    snapshots.xterm.push(await xterm.snapshot());
  }
  return snapshots;
}

/** `text` in pieces of `size` characters (whole code points: a sequence may still be split). */
function pieces(text: string, size: number): string[] {
  const chars = [...text];
  const split: string[] = [];
  for (let i = 0; i < chars.length; i += size) split.push(chars.slice(i, i + size).join(""));
  return split;
}

describe("XtermScreen renders what TextScreen renders", () => {
  for (const name of ["vi", "top", "less", "python", "progress"]) {
    it(`for ${name}, read after every few characters, after every 64 and once at the end`, async () => {
      const text = captured[name] as string;
      for (const size of [7, 64, text.length]) {
        const { text: expected, xterm } = await bothScreens(pieces(text, size));
        assert.deepEqual(xterm, expected, `${name} in pieces of ${size}`);
      }
    });
  }

  const cases: { name: string; size: [number, number, number]; pieces: string[] }[] = [
    {
      name: "what scrolled off is reported once, and what passed the bound is counted",
      size: [2, 10, 3],
      pieces: ["1\r\n2\r\n3\r\n4\r\n5\r\n6", "\r\n7", "x\r\n8\r\n9"],
    },
    {
      name: "thousands of rows between reads, past the scrollback, are counted exactly",
      size: [5, 10, 20],
      pieces: [
        Array.from({ length: 3000 }, (_, i) => `line ${i}`).join("\r\n"),
        "\r\nmore",
        Array.from({ length: 7 }, (_, i) => `x${i}`).join("\r\n"),
        Array.from({ length: 40 }, (_, i) => `\r\ny${i}`).join(""),
      ],
    },
    {
      name: "with no scrollback, every row that scrolled off is counted",
      size: [3, 10, 0],
      pieces: ["1\r\n2\r\n3\r\n4\r\n5", "\r\n6"],
    },
    {
      name: "a clear moves the rows not yet read into the scrollback; CSI 3 J erases nothing",
      size: [4, 20, 1000],
      pieces: ["unread\r\nrows", "\x1b[H\x1b[2J\x1b[3J$ ", "seen\r\n", "\x1b[H\x1b[2J\x1b[3J"],
    },
    {
      name:
        "the alternate screen adds nothing to the scrollback, and leaving it shows the main one",
      size: [2, 10, 1000],
      pieces: ["main\r\n", "\x1b[?1049h\x1b[Ha\r\nb\r\nc\r\nd", "\x1b[?1049l", "\r\nnext"],
    },
    {
      name: "cursor moves, erases, inserted and deleted lines and characters, a scrolling region",
      size: [4, 10, 1000],
      pieces: [
        "0123456789\x1b[2;3Hxy\x1b[1;5H\x1b[K\x1b[3;1Hline3\x1b[1G\x1b[2P",
        "\x1b[2;1H\x1b[L",
        "\x1b[1;1H\x1b[M\x1b[2@>",
        "\x1b[H\x1b[Jhead\r\nb\r\nc\r\nfoot\x1b[2;3r\x1b[3;1H\r\nd",
        "\x1b[2;1H\x1bMup",
      ],
    },
    {
      name: "wide characters take two cells and wrap whole; a half written over blanks the other",
      size: [4, 6, 1000],
      pieces: [
        "漢x\x1b[3GY\r\n😀ab\x1b[4GZ",
        "\r\n漢字ab",
        "c",
        "\r\nabcde字f",
        "\x1b[H\x1b[2J字|\x1b[2Gx\r\n|漢|\x1b[2Gy\r\n|漢|\x1b[2G\x1b[1K\r\n|漢|\x1b[2G\x1b[P",
        "\x1b[H\x1b[2J✅ ok\r\n❌ no ⭐\r\ne\u0301x\x1b[2GY",
      ],
    },
  ];
  for (const { name, size: [rows, cols, bound], pieces } of cases) {
    it(name, async () => {
      const { text, xterm } = await bothScreens(pieces, rows, cols, bound);
      assert.deepEqual(xterm, text);
    });
  }
});

describe("XtermScreen", () => {
  it("gives emoji two cells, as the programs count them (xterm's own Unicode 6 table gives one)", async () => {
    const screen = new XtermScreen(2, 10);
    screen.write("😀\x1b[3GX");
    assert.deepEqual((await screen.snapshot()).lines, ["😀X"]);
  });

  it("draws what TextScreen drops: the DEC line-drawing charset and repeated characters", async () => {
    const screen = new XtermScreen(3, 20);
    screen.write("\x1b(0lqqk\x1b(B\r\n-\x1b[4b|");
    assert.deepEqual((await screen.snapshot()).lines, ["┌──┐", "-----|"]);
  });

  it("shows in a snapshot exactly what was written before it was asked for", async () => {
    const screen = new XtermScreen(3, 20);
    screen.write("before");
    const first = screen.snapshot();
    screen.write("\r\nafter");
    assert.deepEqual((await first).lines, ["before"]);
    assert.deepEqual((await screen.snapshot()).lines, ["before", "after"]);
  });

  it("resizes after what was written: rows below the new bottom scroll off, reported once", async () => {
    const screen = new XtermScreen(3, 10);
    screen.write("1\r\n2\r\n3");
    screen.resize(2, 10);
    screen.write("!");
    assert.deepEqual(await screen.snapshot(), {
      lines: ["2", "3!"],
      scrolledOff: ["1"],
      droppedLines: 0,
      alternate: false,
    });
  });

  it("is what xtermScreen makes for a terminal's size", async () => {
    const screen = xtermScreen({ rows: 3, cols: 5 });
    assert.ok(screen instanceof XtermScreen);
    screen.write("abcdefgh\r\n1\r\n2\r\n3");
    const { lines, scrolledOff } = await screen.snapshot();
    assert.deepEqual([lines, scrolledOff], [["1", "2", "3"], ["abcde", "fgh"]]);
  });
});

/** Types `input` into task `id` and reads again until `pattern` shows, within 20 s. */
async function typeUntil(
  taskInput: AgentTool,
  id: string,
  input: string,
  pattern: RegExp,
): Promise<string> {
  const deadline = performance.now() + 20_000;
  let next = input;
  for (;;) {
    const reply = await taskInput.execute({ task_id: id, input: next, wait_ms: 250 });
    assert.equal(reply.isError, false, reply.text);
    if (pattern.test(reply.text)) return reply.text;
    if (performance.now() > deadline) throw new Error(`no ${pattern} within 20 s: ${reply.text}`);
    next = "";
  }
}

describe("terminal tasks through the tools with createBashTools({ screen: xtermScreen })", () => {
  async function withTools(
    use: (tools: { bash: AgentTool; taskInput: AgentTool }, dir: string) => Promise<void>,
  ): Promise<void> {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "xterm-tools-")));
    const executor = new LocalBashExecutor();
    const tasks = new TaskRegistry();
    try {
      const set = createBashTools({
        executor,
        tasks,
        owner: taskOwner("model"),
        workdir: dir,
        enableTerminal: true,
        screen: xtermScreen,
      });
      assert.ok(set.taskInput !== undefined);
      await use({ bash: set.bash, taskInput: set.taskInput }, dir);
    } finally {
      await tasks.close();
      await executor.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  async function start(bash: AgentTool, command: string): Promise<string> {
    const reply = await bash.execute({ command, description: "Run", terminal: true });
    assert.equal(reply.isError, false, reply.text);
    return reply.text.match(/^started background task (bash-\d+)/)?.[1] as string;
  }

  it("printf with colours, cursor moves and wide characters reads as a person sees it", async () => {
    await withTools(async ({ bash, taskInput }) => {
      const id = await start(
        bash,
        "read go; printf '\\033[2J\\033[H\\033[1;31mred\\033[0m plain\\033[1GR\\n漢字😀\\033[7G|\\n'",
      );
      const reply = await typeUntil(taskInput, id, "\r", /status: completed, exit code: 0/);
      // Column 7 is right after the three wide characters.
      assert.match(reply, /^\[screen\]\nRed plain\n漢字😀\|\n/);
      assert.ok(!reply.includes("\x1b"), "no escape sequence reaches the model");
    });
  });

  it("python3's REPL adds 1+1, and exit() ends it", async () => {
    await withTools(async ({ bash, taskInput }) => {
      const id = await start(bash, "python3 -q");
      await typeUntil(taskInput, id, "", /^>>> ?$/m);
      const reply = await typeUntil(taskInput, id, "1+1\r", /^2$/m);
      assert.match(reply, /\[screen\]\n>>> 1\+1\n2\n>>>/);
      await typeUntil(taskInput, id, "exit()\r", /status: completed, exit code: 0/);
    });
  });

  it("vi opens a file, takes text with wide characters, and :wq saves it", async () => {
    await withTools(async ({ bash, taskInput }, dir) => {
      const id = await start(bash, "LC_ALL=C.UTF-8 vi -u NONE -N -i NONE notes.txt");
      await typeUntil(taskInput, id, "", /full-screen program[\s\S]*"notes.txt"/);
      const typed = await typeUntil(taskInput, id, "i漢字 from the model\u001b", /from the model/);
      assert.match(typed, /\[screen \(a full-screen program\)\]\n漢字 from the model\n~\n/);
      await typeUntil(taskInput, id, ":wq\r", /status: completed, exit code: 0/);
      assert.equal(readFileSync(join(dir, "notes.txt"), "utf8"), "漢字 from the model\n");
    });
  });
});
