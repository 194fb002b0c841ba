import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import { LocalBashExecutor } from "../../local/mod.ts";
import type { BashProcess, BashProcessRead } from "../../seam/mod.ts";
import { withPlan } from "./_plan.ts";
import { pause, seqText, STRATEGIES } from "../local/_helpers.ts";

/** What consecutive stdout reads delivered: text pieces and gaps of dropped bytes, in order. */
class ReadLog {
  readonly pieces: ({ text: string } | { dropped: number })[] = [];
  /** Stream bytes the reads have moved past (ASCII streams only: one char is one byte). */
  consumed = 0;
  nonEmptyReads = 0;
  lossyReads = 0;

  /**
   * Records one read of a stream that has no head (`headBytes: 0`), so a lossy
   * read is exactly the omission marker followed by the retained tail.
   */
  add(read: BashProcessRead): void {
    let text = read.stdout.text;
    if ((read.stdout.truncated || read.stderr.truncated)) {
      const marker = /^\[\.\.\. (\d+) bytes omitted \.\.\.\]\n/.exec(text);
      assert.ok(marker !== null, `a lossy read starts with the marker: ${text.slice(0, 80)}`);
      const dropped = Number(marker[1]);
      assert.equal(
        dropped,
        read.stdout.omittedBytes + read.stderr.omittedBytes,
        "the marker counts the dropped bytes",
      );
      this.pieces.push({ dropped });
      this.consumed += dropped;
      this.lossyReads++;
      text = text.slice(marker[0].length);
    } else {
      assert.equal(read.stdout.omittedBytes + read.stderr.omittedBytes, 0);
    }
    if (text !== "") {
      this.pieces.push({ text });
      this.consumed += text.length;
      this.nonEmptyReads++;
    }
  }

  /** Every read, with each gap filled from `stream`; equals `stream` when nothing was skipped. */
  rebuild(stream: string): string {
    let offset = 0;
    let out = "";
    for (const piece of this.pieces) {
      const length = "text" in piece ? piece.text.length : piece.dropped;
      out += "text" in piece ? piece.text : stream.slice(offset, offset + length);
      offset += length;
    }
    return out;
  }
}

/** Reads until `log` has moved past `bytes` bytes of the stream. */
async function readUntil(process: BashProcess, log: ReadLog, bytes: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (log.consumed < bytes) {
    assert.ok(Date.now() < deadline, `only ${log.consumed} of ${bytes} bytes arrived`);
    log.add(process.readOutput());
    await pause(1);
  }
  assert.equal(log.consumed, bytes, "no read went past the end of the phase");
}

for (const sessionStrategy of STRATEGIES) {
  describe("background reads of UTF-16 output", () => {
    it("decode it as the result does, across reads that cut a character", async () => {
      await using executor = new LocalBashExecutor();
      const process = await executor.start({
        // h, é and the first half of U+1D11E's surrogate pair; the rest later.
        command: String
          .raw`printf '\xff\xfeh\x00\xe9\x00\x34\xd8'; sleep 0.3; printf '\x1e\xdd\n\x00'`,
      });
      const pieces: string[] = [];
      while (pieces.join("") === "" && process.status === "running") {
        pieces.push(process.readOutput().stdout.text);
        await pause(10);
      }
      await process.done;
      pieces.push(process.readOutput().stdout.text);
      assert.equal(pieces.join(""), "hé\u{1D11E}\n");
      assert.ok(pieces.every((piece) => !piece.includes("\uFFFD")), JSON.stringify(pieces));
    });
  });

  describe(`background reads (${sessionStrategy})`, () => {
    it("concatenating every read, gaps filled from the spill file, is the stream byte for byte", async () => {
      await using executor = new LocalBashExecutor({
        sessionStrategy,
        maxOutputBytes: 1024,
        headBytes: 0,
      });
      // Phase one: 10,000 small writes, with a stop halfway so that at least two
      // reads see it. Phase two, once the test says so: one burst far larger
      // than the 1024-byte window.
      const process = await executor.start(executor.resolve({
        command: [
          "for i in $(seq 1 5000); do echo $i; done; read -r _",
          "for i in $(seq 5001 10000); do echo $i; done; read -r _",
          "seq 1 20000",
        ].join("; "),
        keepStdinOpen: true,
      }));
      const phaseOne = seqText(10_000);
      const phaseTwo = seqText(20_000);
      const log = new ReadLog();
      await readUntil(process, log, seqText(5_000).length);
      await process.write("go\n");
      await readUntil(process, log, phaseOne.length);
      assert.ok(log.nonEmptyReads >= 2);
      await process.write("go\n");
      await process.done;
      const last = process.readOutput();
      assert.equal(last.stdout.truncated || last.stderr.truncated, true);
      assert.equal(last.stdout.omittedBytes + last.stderr.omittedBytes, phaseTwo.length - 1024);
      assert.equal(
        last.stdout.text,
        `[... ${phaseTwo.length - 1024} bytes omitted ...]\n${phaseTwo.slice(-1024)}`,
        "a read that fell behind returns exactly what is retained",
      );
      log.add(last);
      assert.ok(
        (last.stdout.spillComplete ? last.stdout.spillPath : undefined) !== undefined,
        "a lossy read names the spill file",
      );
      const spilled = readFileSync(last.stdout.spillPath!);
      assert.ok(spilled.equals(Buffer.from(phaseOne + phaseTwo)), "the spill is the whole stream");
      assert.equal(log.consumed, spilled.length);
      assert.equal(log.rebuild(spilled.toString("latin1")), phaseOne + phaseTwo);
      const after = process.readOutput();
      assert.deepEqual(
        [
          after.stdout.text,
          after.stderr.text,
          after.stdout.truncated || after.stderr.truncated,
          after.stdout.omittedBytes + after.stderr.omittedBytes,
          after.status,
        ],
        ["", "", false, 0, "completed"],
        "reads stay valid after exit and deliver nothing twice",
      );
    });

    it("a reader that keeps up loses nothing however small the window", async () => {
      await using executor = new LocalBashExecutor({
        sessionStrategy,
        maxOutputBytes: 64,
        headBytes: 16,
      });
      const process = await executor.start(
        executor.resolve({ command: "cat", keepStdinOpen: true }),
      );
      const chunks = Array.from({ length: 300 }, (_, i) => `${String(i).padStart(6, "0")}\n`);
      let delivered = "";
      for (const chunk of chunks) {
        await process.write(chunk);
        const want = delivered.length + chunk.length;
        const deadline = Date.now() + 10_000;
        while (delivered.length < want) {
          assert.ok(Date.now() < deadline, `chunk ${JSON.stringify(chunk)} never came back`);
          const read = process.readOutput();
          assert.equal(
            read.stdout.truncated || read.stderr.truncated,
            false,
            `lossy at byte ${delivered.length}`,
          );
          delivered += read.stdout.text;
          if (delivered.length < want) await pause(1);
        }
        assert.equal(delivered, chunks.slice(0, chunks.indexOf(chunk) + 1).join(""));
      }
      await process.closeStdin();
      await process.done;
      assert.equal(process.readOutput().stdout.text, "");
      assert.equal(process.status, "completed");
    });

    it("characters split across 10,000 writes arrive whole, however the reads fall", async () => {
      await using executor = new LocalBashExecutor({ sessionStrategy, maxOutputBytes: 1 << 20 });
      const half = "for i in $(seq 1 5000); do printf '\\xe2'; printf '\\x82\\xac'; done";
      const process = await executor.start(executor.resolve({
        command: `${half}; read -r _; ${half}`,
        keepStdinOpen: true,
      }));
      let settled = false;
      void process.done.then(() => (settled = true));
      let text = "";
      let halfway = false;
      const deadline = Date.now() + 20_000;
      for (;;) {
        const wasSettled = settled;
        const read = process.readOutput();
        assert.equal(read.stdout.truncated || read.stderr.truncated, false);
        text += read.stdout.text;
        if (wasSettled) break;
        // The stop halfway guarantees that more than one read sees the stream.
        if (!halfway && text.length === 5_000) {
          halfway = true;
          await process.write("go\n");
        }
        assert.ok(Date.now() < deadline, `only ${text.length} characters arrived`);
        await pause(1);
      }
      assert.equal(text, "\u20ac".repeat(10_000));
    });

    it("a lossy read whose window starts mid-character drops and counts the cut bytes", async () => {
      await using executor = new LocalBashExecutor({
        sessionStrategy,
        maxOutputBytes: 100,
        headBytes: 0,
      });
      const process = await executor.start(executor.resolve({
        command: "for i in $(seq 1 1000); do printf '\\xe2\\x82\\xac'; done",
      }));
      await process.done;
      // 3000 bytes, the last 100 retained: the window starts on the third byte of a
      // character, so that byte is dropped with the 2900 before it.
      const read = process.readOutput();
      assert.equal(read.stdout.truncated || read.stderr.truncated, true);
      assert.equal(read.stdout.omittedBytes + read.stderr.omittedBytes, 2901);
      assert.equal(read.stdout.text, `[... 2901 bytes omitted ...]\n${"\u20ac".repeat(33)}`);
    });

    it("a lossy read cuts a character at the head's edge as run() does", async () => {
      await using executor = new LocalBashExecutor({
        sessionStrategy,
        maxOutputBytes: 100,
        headBytes: 5,
      });
      const spec = executor.resolve({
        command: "for i in $(seq 1 1000); do printf '\\xe2\\x82\\xac'; done",
      });
      const process = await executor.start(spec);
      await process.done;
      const foreground = await executor.run(spec);
      // The 5-byte head ends two bytes into a character and the 95-byte tail starts
      // two bytes into one: both readers leave those four out and count them with the gap.
      const read = process.readOutput();
      assert.equal(foreground.stdout.omittedBytes, 2904);
      assert.equal(read.stdout.omittedBytes + read.stderr.omittedBytes, 2904);
      assert.equal(read.stdout.text, foreground.stdout.text);
      assert.equal(
        read.stdout.text,
        `\u20ac\n[... 2904 bytes omitted ...]\n${"\u20ac".repeat(31)}`,
      );
    });

    it("the read after exit ends a stream cut mid-character with one replacement character", async () => {
      await using executor = new LocalBashExecutor({ sessionStrategy });
      const process = await executor.start(executor.resolve({
        command: "printf 'ok\\xe2\\x82'; read -r _",
        keepStdinOpen: true,
      }));
      let text = "";
      const deadline = Date.now() + 10_000;
      while (text !== "ok") {
        assert.ok(Date.now() < deadline, `got ${JSON.stringify(text)}`);
        text += process.readOutput().stdout.text;
        await pause(5);
      }
      // The two bytes of the unfinished character arrived with "ok" and wait for more.
      await pause(50);
      assert.equal(process.readOutput().stdout.text, "");
      await process.write("\n");
      await process.done;
      assert.equal(process.readOutput().stdout.text, "\ufffd");
      assert.equal(process.readOutput().stdout.text, "");
    });

    it("keeps stderr's cursor apart from stdout's", async () => {
      await using executor = new LocalBashExecutor({ sessionStrategy });
      const process = await executor.start(executor.resolve({
        command: "echo o1; echo e1 >&2; read -r _; echo o2; echo e2 >&2",
        keepStdinOpen: true,
      }));
      let first = { stdout: "", stderr: "" };
      const deadline = Date.now() + 10_000;
      while (first.stdout !== "o1\n" || first.stderr !== "e1\n") {
        assert.ok(Date.now() < deadline, `got ${JSON.stringify(first)}`);
        const read = process.readOutput();
        first = {
          stdout: first.stdout + read.stdout.text,
          stderr: first.stderr + read.stderr.text,
        };
        await pause(5);
      }
      await process.write("\n");
      await process.done;
      const second = process.readOutput();
      assert.deepEqual([second.stdout.text, second.stderr.text], ["o2\n", "e2\n"]);
    });
  });
}

describe("a plan's beforeRead hook", () => {
  it("runs before each read of a running process, and what it returns is the read's violations", async () => {
    let calls = 0;
    await using executor = new LocalBashExecutor({
      ...withPlan((_spec, launch) =>
        Promise.resolve({
          launch,
          beforeRead: () => {
            calls++;
            return calls === 1 ? [{ path: "/ws/.git", quarantinedTo: "/q/1-.git" }] : [];
          },
        })
      ),
    });
    const process = await executor.start(executor.resolve({ command: "sleep 30" }));
    try {
      assert.deepEqual(process.readOutput().violations, [
        { path: "/ws/.git", quarantinedTo: "/q/1-.git" },
      ]);
      assert.equal(process.readOutput().violations, undefined);
      assert.equal(calls, 2);
    } finally {
      await process.kill();
    }
    process.readOutput();
    assert.equal(calls, 2, "a settled process is not checked again");
  });
});
