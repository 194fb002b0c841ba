import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { BashOutputEvent, BashProcess } from "../../seam/mod.ts";
import { echoOf, MAX_DRAWN, ScreenFeed } from "../../tool/_screen_feed.ts";
import { type ScreenSnapshot, TextScreen } from "../../tool/mod.ts";
import { INPUT_QUIET_MS } from "../../tool/schemas/mod.ts";

/** A terminal process whose output the test says, piece by piece, and ends. */
class ScriptedProcess {
  readonly #queue: (string | null)[] = [];
  #wake: (() => void) | undefined;
  readonly resizes: [number, number][] = [];
  failResize = false;

  say(text: string | null): void {
    this.#queue.push(text);
    this.#wake?.();
  }

  /** A piece of output already fed to the feed: the next macrotask. */
  flushed(): Promise<void> {
    return new Promise((done) => setTimeout(done, 0));
  }

  get process(): BashProcess {
    const queue = this.#queue;
    const waitForMore = () => new Promise<void>((wake) => this.#wake = wake);
    const resizes = this.resizes;
    const failing = () => this.failResize;
    return {
      async *output(): AsyncGenerator<BashOutputEvent> {
        for (;;) {
          if (queue.length === 0) await waitForMore();
          const text = queue.shift();
          if (text === null) return;
          if (text !== undefined) yield { stream: "stdout", text };
        }
      },
      resize: (rows: number, cols: number) => {
        resizes.push([rows, cols]);
        return failing() ? Promise.reject(new Error("gone")) : Promise.resolve();
      },
    } as unknown as BashProcess;
  }
}

/** The screen `feed` has drawn (a failure of its renderer fails the test). */
async function drawn(feed: ScreenFeed): Promise<ScreenSnapshot> {
  const read = feed.screen();
  assert.equal(read.screenError, undefined);
  assert.ok(read.screen !== undefined);
  return await read.screen;
}

/** A screen that throws in `write` once it was given `breakAt`, or in `snapshot` when `snapshotFails`. */
class BrokenScreen extends TextScreen {
  constructor(readonly breakAt: string, readonly snapshotFails: "no" | "at once" | "later" = "no") {
    super(3, 20);
  }
  override write(text: string): void {
    if (text.includes(this.breakAt)) throw new RangeError(`cannot draw "${this.breakAt}"`);
    super.write(text);
  }
  override snapshot(): ScreenSnapshot {
    if (this.snapshotFails === "at once") throw new Error("no snapshot");
    return super.snapshot();
  }
}

/** Whether `promise` settled by the time every timer due within `ms` fired. */
async function settledWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let settled = false;
  promise.then(() => settled = true);
  await new Promise((done) => setTimeout(done, ms));
  return settled;
}

describe("ScreenFeed", () => {
  it("feeds the screen as the output arrives, and fed settles once it ended", async () => {
    const scripted = new ScriptedProcess();
    const feed = new ScreenFeed(scripted.process, new TextScreen(4, 20));
    scripted.say(">>> ");
    await scripted.flushed();
    assert.deepEqual((await drawn(feed)).lines, [">>>"]);
    scripted.say("1+1\r\n2\r\n");
    scripted.say(null);
    await feed.fed;
    assert.deepEqual((await drawn(feed)).lines, [">>> 1+1", "2"]);
  });

  it("draws only the last lines of a flood, after a line that says how much was not drawn", async () => {
    const scripted = new ScriptedProcess();
    const feed = new ScreenFeed(scripted.process, new TextScreen(3, 60, 10_000));
    const flood = Array.from({ length: 30_000 }, (_, i) => `line ${i}\r\n`).join("");
    scripted.say(flood);
    scripted.say(null);
    await feed.fed;
    const from = flood.indexOf("\n", flood.length - MAX_DRAWN) + 1;
    const first = flood.slice(from, flood.indexOf("\r", from));
    const { lines, scrolledOff, droppedLines } = await drawn(feed);
    assert.deepEqual(lines, ["line 29998", "line 29999"]);
    const marker = scrolledOff.indexOf(`[... ${from} characters of output not drawn ...]`);
    assert.ok(marker >= 0, scrolledOff.slice(0, 3).join("\n"));
    assert.equal(scrolledOff[marker + 1], first);
    assert.equal(scrolledOff.length - marker - 1 + 2, flood.slice(from).split("\n").length - 1);
    assert.equal(droppedLines, 0);
  });

  it("ends a long wait once the program answered and went quiet, the program still running", async () => {
    const scripted = new ScriptedProcess();
    const feed = new ScreenFeed(scripted.process, new TextScreen(4, 20));
    const answer = feed.awaitAnswer("1+1\r", 60_000);
    scripted.say("1+1\r\n2\r\n>>> ");
    // Resolves at all: without the quiet window it would wait the whole minute.
    await answer;
    assert.deepEqual((await drawn(feed)).lines, ["1+1", "2", ">>>"]);
  });

  it("does not take the echo of the input for an answer", async () => {
    const scripted = new ScriptedProcess();
    const feed = new ScreenFeed(scripted.process, new TextScreen(4, 20));
    const answer = feed.awaitAnswer("make\r", 60_000);
    scripted.say("make\r\n");
    // Every quiet timer the echo could have started is due by then, and fires first.
    assert.equal(await settledWithin(answer, INPUT_QUIET_MS * 3), false);
    scripted.say("built\r\n");
    await answer;
    assert.deepEqual((await drawn(feed)).lines, ["make", "built"]);
  });

  it("waits the whole wait when nothing comes, and at once when the output already ended", async () => {
    const scripted = new ScriptedProcess();
    const feed = new ScreenFeed(scripted.process, new TextScreen(4, 20));
    const silent = feed.awaitAnswer("x", 60_000);
    assert.equal(await settledWithin(silent, INPUT_QUIET_MS * 3), false);
    scripted.say(null);
    await silent;
    await feed.fed;
    await feed.awaitAnswer("y", 60_000);
  });

  it("ends a wait when its signal aborts", async () => {
    const scripted = new ScriptedProcess();
    const feed = new ScreenFeed(scripted.process, new TextScreen(4, 20));
    const controller = new AbortController();
    const answer = feed.awaitAnswer("", 60_000, controller.signal);
    controller.abort();
    await answer;
    scripted.say(null);
    await feed.fed;
  });

  it("draws output from before a resize at the old size and after it at the new one", async () => {
    const scripted = new ScriptedProcess();
    const feed = new ScreenFeed(scripted.process, new TextScreen(3, 5));
    scripted.say("abcdefgh");
    await scripted.flushed();
    await feed.resize({ rows: 3, cols: 10 }, { rows: 3, cols: 5 });
    assert.deepEqual(scripted.resizes, [[3, 10]]);
    scripted.say("\r\n0123456789");
    scripted.say(null);
    await feed.fed;
    // Wrapped at 5 before the resize, not at 10 after it.
    assert.deepEqual((await drawn(feed)).lines, ["abcde", "fgh", "0123456789"]);
  });

  it("stops feeding a renderer that threw, and each read then says why instead of a stale screen", async () => {
    const scripted = new ScriptedProcess();
    const feed = new ScreenFeed(scripted.process, new BrokenScreen("\u0007"));
    scripted.say("ready\r\n");
    await scripted.flushed();
    assert.deepEqual((await drawn(feed)).lines, ["ready"]);
    scripted.say("bell \u0007");
    await scripted.flushed();
    const why = 'the screen renderer failed: cannot draw "\u0007"';
    assert.deepEqual(feed.screen(), { screenError: why });
    // The output is still read to its end: a wait for an answer still ends on it.
    const answered = feed.awaitAnswer("x\r", 60_000);
    scripted.say("answer\r\n");
    await answered;
    scripted.say(null);
    await feed.fed;
    assert.deepEqual(feed.screen(), { screenError: why });
  });

  it("says why when the renderer's snapshot throws, or its promise rejects", async () => {
    const atOnce = new ScreenFeed(new ScriptedProcess().process, new BrokenScreen("-", "at once"));
    assert.deepEqual(atOnce.screen(), { screenError: "the screen renderer failed: no snapshot" });
    const later = new ScreenFeed(new ScriptedProcess().process, {
      write: () => {},
      resize: () => {},
      snapshot: () => Promise.reject(new Error("emulator gone")),
    });
    const read = later.screen();
    assert.ok(read.screen instanceof Promise);
    await assert.rejects(read.screen, /^Error: the screen renderer failed: emulator gone$/);
    assert.deepEqual(later.screen(), { screenError: "the screen renderer failed: emulator gone" });
  });

  it("puts the screen back when the terminal could not be resized", async () => {
    const scripted = new ScriptedProcess();
    const feed = new ScreenFeed(scripted.process, new TextScreen(3, 5));
    scripted.failResize = true;
    await assert.rejects(feed.resize({ rows: 3, cols: 10 }, { rows: 3, cols: 5 }), /gone/);
    scripted.say("abcdefgh");
    scripted.say(null);
    await feed.fed;
    assert.deepEqual((await drawn(feed)).lines, ["abcde", "fgh"]);
  });
});

describe("echoOf", () => {
  it("is what a terminal in its usual mode shows of typed keys", () => {
    assert.equal(echoOf("ls -l\r"), "ls -l\r\n");
    assert.equal(echoOf("\u0003"), "^C");
    assert.equal(echoOf("\u0004\u007f\t"), "^D^?\t");
  });
});
