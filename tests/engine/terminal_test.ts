import { describe } from "node:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import assert from "node:assert/strict";
import { LocalBashExecutor } from "../../local/mod.ts";
import { BashConfigError, BashSpawnError } from "../../seam/mod.ts";
import { platformFacts, runtime } from "../../local/mod.ts";
import { findScript, terminalHolder, terminalOfListing } from "../../engine/_terminal.ts";
import { it } from "../local/_executor.ts";
import { alive, processTree, TerminalWatch } from "../_terminal.ts";

const size = { rows: 30, cols: 100 };

/**
 * Starts a program that prints the terminal's size at each SIGWINCH, resizes
 * its terminal to 40 rows and 132 columns, waits until it printed that size,
 * and kills it.
 */
async function resizedTo132x40(executor: LocalBashExecutor): Promise<void> {
  const process = await executor.start({
    command: "trap 'echo cols=$(tput cols) lines=$(tput lines)' WINCH; echo ready; " +
      "while :; do sleep 0.05; done",
    terminal: size,
  });
  const watch = new TerminalWatch(process);
  await watch.until(/ready/);
  await process.resize(40, 132);
  await watch.until(/cols=132 lines=40/);
  await process.kill();
}

describe("start() with a terminal: bad requests", () => {
  it("refuses a bad size with BashConfigError naming the field", async () => {
    await using executor = new LocalBashExecutor();
    const bad: [unknown, RegExp][] = [
      [{ rows: 0, cols: 80 }, /"terminal.rows" must be a whole number from 1 to 1000; got 0/],
      [{ rows: 24, cols: 1.5 }, /"terminal.cols" must be a whole number .* got 1.5/],
      [{ rows: 24, cols: "80" }, /"terminal.cols" .* got "80"/],
      [{ rows: 24, cols: 1001 }, /"terminal.cols" .* got 1001/],
      [{ rows: 24 }, /"terminal.cols" .* got undefined/],
      [{ rows: 24, cols: 80, colour: true }, /"terminal" has no key "colour"/],
      [null, /"terminal" must be an object \{ rows, cols \}; got null/],
      [[24, 80], /"terminal" must be an object .* got an array/],
    ];
    for (const [terminal, message] of bad) {
      assert.throws(
        () => executor.resolve({ command: "true", terminal } as never),
        (error: unknown) => error instanceof BashConfigError && message.test(error.message),
        JSON.stringify(terminal),
      );
      await assert.rejects(
        executor.start({ command: "true", terminal } as never),
        BashConfigError,
      );
    }
  });

  it("is for start() only: run() refuses it, saying to use start()", async () => {
    await using executor = new LocalBashExecutor();
    await assert.rejects(
      executor.run({ command: "echo ran", terminal: size }),
      (error: unknown) =>
        error instanceof BashConfigError &&
        /"terminal" applies to start\(\) only/.test(error.message),
    );
  });

  it("refuses keepStdinOpen: false beside it", async () => {
    await using executor = new LocalBashExecutor();
    await assert.rejects(
      executor.start({ command: "true", terminal: size, keepStdinOpen: false }),
      (error: unknown) =>
        error instanceof BashConfigError && /cannot go with a "terminal"/.test(error.message),
    );
  });

  it("refuses resize() of a process without a terminal, and a bad size", async () => {
    await using executor = new LocalBashExecutor();
    const plain = await executor.start({ command: "sleep 30" });
    await assert.rejects(plain.resize(24, 80), /has no terminal to resize; start it with/);
    await plain.kill();
    const process = await executor.start({ command: "sleep 30", terminal: size });
    await assert.rejects(process.resize(0, 80), /"size.rows" must be a whole number/);
    await process.kill();
    await assert.rejects(process.resize(24, 80), /is no longer running/);
  });
});

describe("start() with a terminal", () => {
  it("gives the command a terminal of the size asked for, and TERM=xterm-256color", async () => {
    await using executor = new LocalBashExecutor();
    const process = await executor.start({
      command: "[ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo all-tty; echo term=$TERM; stty size; " +
        "tty; [ -e /dev/tty ] && : </dev/tty && echo ctty-ok",
      terminal: size,
    });
    await process.done;
    const { stdout } = process.readOutput();
    assert.match(
      stdout.text,
      /^all-tty\r\nterm=xterm-256color\r\n30 100\r\n\/dev\/pts\/\d+\r\nctty-ok\r\n$/,
    );
    assert.equal(process.exitCode, 0);
  });

  it("drops the overrides for commands without a terminal, keeps the credential ones, and a caller's env wins", async () => {
    await using executor = new LocalBashExecutor();
    const names = "NO_COLOR PAGER GIT_PAGER EDITOR VISUAL GIT_EDITOR GIT_TERMINAL_PROMPT SHELL";
    const show = `for n in ${names}; do printf '%s=%s;' "$n" "\${!n-unset}"; done`;
    const bare = await executor.start({
      command: show,
      terminal: size,
      env: { SHELL: "/bin/own" },
    });
    await bare.done;
    // The host's own values (CI sets EDITOR=vi), not the overrides.
    const host = (name: string) => `${name}=${process.env[name] ?? "unset"};`;
    assert.equal(
      bare.readOutput().stdout.text,
      ["NO_COLOR", "PAGER", "GIT_PAGER", "EDITOR", "VISUAL", "GIT_EDITOR"].map(host).join("") +
        "GIT_TERMINAL_PROMPT=0;SHELL=/bin/own;",
    );
    const set = await executor.start({
      command: show,
      terminal: size,
      env: { NO_COLOR: "1", PAGER: "cat" },
    });
    await set.done;
    assert.match(set.readOutput().stdout.text, /^NO_COLOR=1;PAGER=cat;/);
  });

  it("exits with the command's exit code", async () => {
    await using executor = new LocalBashExecutor();
    const process = await executor.start({ command: "echo bye; exit 3", terminal: size });
    await process.done;
    assert.deepEqual([process.status, process.exitCode], ["completed", 3]);
  });

  it("takes typed input: a prompt is answered", async () => {
    await using executor = new LocalBashExecutor();
    const process = await executor.start({
      command: "read -p 'Continue? [y/N] ' answer; echo answer=$answer",
      terminal: size,
    });
    const watch = new TerminalWatch(process);
    await watch.until(/Continue\? \[y\/N\] $/);
    await process.write("y\r");
    await process.done;
    await watch.ended;
    assert.equal(watch.text, "Continue? [y/N] y\r\nanswer=y\r\n");
  });

  it("passes control keys through: Ctrl-C stops a sleep", async () => {
    await using executor = new LocalBashExecutor();
    const process = await executor.start({
      // "ready" comes from the foreground program itself, so Ctrl-C finds it running.
      command: "trap 'echo interrupted' INT; bash -c 'echo ready; exec sleep 30'; echo status=$?",
      terminal: size,
    });
    const watch = new TerminalWatch(process);
    await watch.until(/ready/);
    await process.write(new Uint8Array([3]));
    await process.done;
    assert.match(watch.text, /^ready\r\n\^Cinterrupted\r\nstatus=130\r\n$/);
    assert.equal(process.status, "completed");
  });

  it("resizes: the foreground program gets SIGWINCH and sees the new size", async () => {
    await using executor = new LocalBashExecutor();
    await resizedTo132x40(executor);
  });

  it("resizes with one size change, never new rows with old columns: by perl on Linux", async () => {
    // Linux's TIOCSWINSZ, as the test knows it; macOS's stty sets both at once, and perl is not asked.
    const asked = globalThis.process.platform === "linux" ? `${0x5414} 40 132\n` : "";
    // A perl first on the executor's tool path that logs what it is asked, then does it:
    // stty's two changes (rows, then columns) would leave it unasked.
    const tools = mkdtempSync(join(tmpdir(), "shellseam-perl-"));
    const log = join(tools, "asked");
    writeFileSync(
      join(tools, "perl"),
      `#!/bin/sh\necho "$4 $5 $6" >> ${log}\nexec /usr/bin/perl "$@"\n`,
      {
        mode: 0o755,
      },
    );
    const path = globalThis.process.env.PATH;
    globalThis.process.env.PATH = `${tools}:${path}`;
    let executor: LocalBashExecutor;
    try {
      executor = new LocalBashExecutor();
    } finally {
      globalThis.process.env.PATH = path;
    }
    try {
      await resizedTo132x40(executor);
      assert.equal(existsSync(log) ? readFileSync(log, "utf8") : "", asked);
    } finally {
      await executor.close();
      rmSync(tools, { recursive: true, force: true });
    }
  });

  it("leaves nothing running after a kill, script and its session included", async () => {
    await using executor = new LocalBashExecutor();
    const process = await executor.start({
      command: "(trap '' HUP TERM INT; exec sleep 60) & echo child=$!; sleep 60",
      terminal: size,
    });
    const watch = new TerminalWatch(process);
    const child = Number((await watch.until(/child=\d+\r\n/)).match(/child=(\d+)/)?.[1]);
    const holder = terminalHolder(process.pid);
    assert.notEqual(holder, null);
    const tree = processTree(process.pid);
    // script, the command's shell (a session of its own), the sleep that ignores the kill.
    assert.ok(tree.includes(child) && tree.includes(holder as number), JSON.stringify(tree));
    assert.notEqual(holder, process.pid);
    assert.equal(await process.kill(), true);
    assert.deepEqual(alive(tree), []);
    assert.equal(process.status, "killed");
  });

  it("leaves nothing running when the command exits and left a child", async () => {
    await using executor = new LocalBashExecutor();
    // The shell waits until its child ignores SIGHUP: else the terminal's hangup may end it first.
    const dir = mkdtempSync(join(tmpdir(), "terminal-child-"));
    const process = await executor.start({
      command: "(trap '' HUP TERM; : > armed; exec sleep 60) & " +
        "until [ -e armed ]; do sleep 0.01; done; echo child=$!",
      terminal: size,
      workdir: dir,
    });
    const watch = new TerminalWatch(process);
    const child = Number((await watch.until(/child=\d+\r\n/)).match(/child=(\d+)/)?.[1]);
    await process.done;
    rmSync(dir, { recursive: true, force: true });
    assert.deepEqual(alive([process.pid, child]), []);
    assert.ok((process.strays?.killed ?? 0) >= 1, JSON.stringify(process.strays));
  });
});

describe("the terminal's device where /proc is not read", () => {
  it("is the outermost pseudo-terminal below the launch in ps's listing, never the launch's own", () => {
    const listing = [
      "  100     1 ttys001 ", // the launch itself, in the user's terminal
      "  200   100 ??      ", // script
      "  300   200 ttys004 ", // the command's shell, leading the terminal's session
      "  400   300 ttys009 ", // a terminal the command opened below it
      "  500   999 ttys002 ", // unrelated
    ].join("\n");
    assert.equal(terminalOfListing(listing, 100), "/dev/ttys004");
    assert.equal(terminalOfListing("  7 1 ?\n  8 7 pts/3\n", 7), "/dev/pts/3");
    assert.equal(terminalOfListing(listing, 400), null);
    assert.equal(terminalOfListing("", 100), null);
  });

  it("passes over any name that is not a pseudo-terminal's, so the host opens no other path", () => {
    for (
      const name of ["../../etc/passwd", "ttys003/../../x", "pts/3x", "console", "tty1", "??", "?"]
    ) {
      assert.equal(terminalOfListing(`  100 1 ??\n  200 100 ${name}\n`, 100), null, name);
    }
  });
});

describe("start() with a terminal where /proc is not read (the portable path, forced on Linux)", () => {
  it("resizes through ps and stty -F on the terminal's device", async () => {
    await using executor = new LocalBashExecutor({
      runtime: { ...runtime, platform: platformFacts("linux", false) },
    });
    const process = await executor.start({
      command: "stty size; echo ready; read line; stty size",
      terminal: size,
    });
    const watch = new TerminalWatch(process);
    await watch.until(/ready\r\n/);
    await process.resize(40, 132);
    await process.write("\r");
    await process.done;
    await watch.ended;
    assert.equal(watch.text, "30 100\r\nready\r\n\r\n40 132\r\n");
    await assert.rejects(process.resize(24, 80), /is no longer running/);
  });

  it("names what to install when there is no script on PATH, per platform", () => {
    const empty = mkdtempSync(join(tmpdir(), "terminal-path-"));
    const path = globalThis.process.env.PATH;
    globalThis.process.env.PATH = empty;
    try {
      for (
        const [os, message] of [
          ["darwin", /needs "script", which is not on PATH; it ships with macOS in \/usr\/bin/],
          ["linux", /needs util-linux "script", which is not on PATH; install util-linux/],
        ] as const
      ) {
        assert.throws(
          () => findScript({ ...runtime, platform: platformFacts(os, false) }),
          (error: unknown) => error instanceof BashSpawnError && message.test(error.message),
        );
      }
    } finally {
      globalThis.process.env.PATH = path;
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
