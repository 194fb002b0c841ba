import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalBashExecutor } from "../../local/mod.ts";
import { BashConfigError, type BashOutputEvent, type BashOutputGap } from "../../seam/mod.ts";
import { pause, sha256 } from "../local/_helpers.ts";

/** A line of 1-, 2- and 4-byte characters, so pipe chunks cut characters. */
const LINE = "é𝄞ab\n";
const LINE_BYTES = new TextEncoder().encode(LINE).length;

/** Joins what an iterator yields per stream, and keeps its gaps. */
function gather(): {
  text: { stdout: string[]; stderr: string[] };
  gaps: BashOutputGap[];
  take(event: BashOutputEvent): void;
} {
  const text = { stdout: [] as string[], stderr: [] as string[] };
  const gaps: BashOutputGap[] = [];
  return {
    text,
    gaps,
    take(event) {
      if ("text" in event) text[event.stream].push(event.text);
      else gaps.push(event);
    },
  };
}

describe("LocalBashExecutor.run with onOutput", () => {
  it("sees every byte of a 10 MB output in order, characters whole, per stream", async () => {
    await using executor = new LocalBashExecutor();
    const lines = Math.ceil(10_000_000 / LINE_BYTES);
    const seen = gather();
    const bytes: Uint8Array[] = [];
    let calls = 0;
    const result = await executor.run({
      command: `yes '${LINE.trim()}' | head -n ${lines}; echo done >&2`,
      onOutput: (chunk) => {
        calls++;
        assert.ok(
          chunk.text !== "" || chunk.bytes.length > 0,
          "a call with neither text nor bytes",
        );
        seen.take(chunk);
        if (chunk.stream === "stdout") bytes.push(chunk.bytes);
      },
    });
    assert.equal(result.exitCode, 0);
    assert.ok(calls > 2, `expected the output in many pieces, got ${calls}`);
    const stdout = seen.text.stdout.join("");
    assert.equal(stdout.length, LINE.length * lines);
    assert.equal(sha256(stdout), sha256(LINE.repeat(lines)));
    assert.equal(sha256(Buffer.concat(bytes)), sha256(LINE.repeat(lines)));
    assert.equal(seen.text.stderr.join(""), "done\n");
    assert.equal(result.stdout.totalBytes, LINE_BYTES * lines);
    assert.equal(result.onOutputError, undefined);
  });

  it("decodes a UTF-16 stream as the result does, with its mark and a character cut across writes", async () => {
    await using executor = new LocalBashExecutor();
    const pieces: string[] = [];
    const result = await executor.run({
      // h, é, then U+1D11E as a surrogate pair (34 D8, 1E DD) cut between writes.
      command: String
        .raw`printf '\xff'; sleep 0.05; printf '\xfeh\x00\xe9\x00\x34'; sleep 0.05; printf '\xd8\x1e'; sleep 0.05; printf '\xdd\n\x00'`,
      onOutput: (chunk) => pieces.push(chunk.text),
    });
    assert.equal(result.stdout.text, "hé\u{1D11E}\n");
    assert.equal(pieces.join(""), result.stdout.text);
    assert.ok(pieces.every((piece) => !piece.includes("\uFFFD")), JSON.stringify(pieces));
  });

  it("gives each piece's bytes as written: joined per stream, binary and a byte-order mark stay exact", async () => {
    await using executor = new LocalBashExecutor();
    const dir = mkdtempSync(join(tmpdir(), "shellseam-live-bytes-"));
    using _removed = { [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
    // A UTF-16 mark first (the text is transcoded from it), then every byte value, in several writes.
    const file = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
    ]);
    writeFileSync(join(dir, "f"), file);
    const bytes = { stdout: [] as Uint8Array[], stderr: [] as Uint8Array[] };
    const text = { stdout: "", stderr: "" };
    const result = await executor.run({
      command:
        `for n in 1 2 3; do head -c 1 f; sleep 0.05; head -c 129 f | tail -c +2; sleep 0.05; tail -c +130 f; done;
        tail -c +3 f >&2`,
      workdir: dir,
      onOutput: (chunk) => {
        bytes[chunk.stream].push(chunk.bytes);
        text[chunk.stream] += chunk.text;
      },
    });
    assert.equal(result.exitCode, 0);
    assert.ok(bytes.stdout.length >= 3, `expected several pieces, got ${bytes.stdout.length}`);
    assert.deepEqual(Buffer.concat(bytes.stdout), Buffer.concat([file, file, file]));
    assert.deepEqual(Buffer.concat(bytes.stderr), file.subarray(2));
    // The text is decoded as before: from UTF-16 for stdout, with replacements for stderr.
    assert.ok(!text.stdout.startsWith("\uFEFF"));
    assert.equal(
      text.stdout,
      new TextDecoder("utf-16le").decode(Buffer.concat([file, file, file])),
    );
    assert.equal(text.stderr, new TextDecoder().decode(file.subarray(2)));
  });

  it("hands out bytes the result does not depend on: a callback that changes them changes nothing", async () => {
    await using executor = new LocalBashExecutor();
    const result = await executor.run({
      command: "echo hello; echo oops >&2",
      onOutput: (chunk) => void chunk.bytes.fill(0x58),
    });
    assert.equal(result.stdout.text, "hello\n");
    assert.equal(result.stderr.text, "oops\n");
  });

  it("keeps running when the callback throws, stops calling it and says what it threw", async () => {
    await using executor = new LocalBashExecutor();
    let calls = 0;
    const result = await executor.run({
      command: "echo one; sleep 0.1; echo two; sleep 0.1; echo three",
      onOutput: () => {
        calls++;
        throw new Error("render failed");
      },
    });
    assert.equal(calls, 1);
    assert.equal(result.exitCode, 0);
    assert.equal(result.stdout.text, "one\ntwo\nthree\n");
    assert.equal(result.onOutputError, "render failed");
  });

  it("reports a callback's rejected promise the same way", async () => {
    await using executor = new LocalBashExecutor();
    const result = await executor.run({
      command: "echo one",
      onOutput: (() => Promise.reject(new Error("async render failed"))) as () => void,
    });
    assert.equal(result.stdout.text, "one\n");
    assert.equal(result.onOutputError, "async render failed");
  });
});

describe("BashProcess.output", () => {
  it("yields every byte of a 20 MB output to a late, slow reader, without holding the command up", async () => {
    await using executor = new LocalBashExecutor();
    const lines = Math.ceil(20_000_000 / LINE_BYTES);
    const command = `yes '${LINE.trim()}' | head -n ${lines}`;
    const process = await executor.start({ command });
    const seen = gather();
    let read = 0;
    let readWhenSettled: number | undefined;
    for await (const event of process.output()) {
      seen.take(event);
      if ("text" in event) read += event.text.length;
      // After the first bytes, the reader stalls until the command has settled: a
      // command held up by its reader would never settle, and this would hang.
      if (read > 0 && readWhenSettled === undefined) {
        await process.done;
        readWhenSettled = read;
      }
      await pause(5);
    }
    assert.deepEqual(seen.gaps, []);
    const stdout = seen.text.stdout.join("");
    assert.equal(sha256(stdout), sha256(LINE.repeat(lines)));
    assert.equal(process.status, "completed");
    assert.ok(
      readWhenSettled !== undefined && readWhenSettled < stdout.length / 2,
      `the command settled after the reader had read ${readWhenSettled} of ${stdout.length}`,
    );
  });

  it("says exactly how many bytes past maxSpillBytes are lost, from where, and why", async () => {
    await using executor = new LocalBashExecutor({
      maxOutputBytes: 10_000,
      headBytes: 4_000,
      maxSpillBytes: 100_000,
    });
    const process = await executor.start({ command: "seq 1 200000" });
    await process.done;
    const seen = gather();
    for await (const event of process.output()) seen.take(event);
    const total = new TextEncoder().encode(
      Array.from({ length: 200_000 }, (_, i) => `${i + 1}\n`).join(""),
    ).length;
    assert.equal(seen.gaps.length, 1);
    const [gap] = seen.gaps;
    assert.equal(gap?.stream, "stdout");
    assert.equal(gap?.offset, 100_000);
    assert.equal(gap?.omittedBytes, total - 100_000 - 6_000);
    assert.match(gap?.reason ?? "", /maxSpillBytes \(100000 bytes\)/);
    const text = seen.text.stdout.join("");
    assert.equal(text.length + (gap?.omittedBytes ?? 0), total);
    assert.ok(text.startsWith("1\n2\n3\n"));
    assert.ok(text.endsWith("199999\n200000\n"));
  });

  it("decodes a UTF-16 stream as the result does, with a character cut across writes", async () => {
    await using executor = new LocalBashExecutor();
    const process = await executor.start({
      command: String
        .raw`printf '\xff\xfeh\x00\xe9\x00\x34'; sleep 0.1; printf '\xd8\x1e\xdd\n\x00'`,
    });
    const seen = gather();
    for await (const event of process.output()) seen.take(event);
    assert.deepEqual(seen.gaps, []);
    assert.equal(seen.text.stdout.join(""), "hé\u{1D11E}\n");
    assert.ok(seen.text.stdout.every((piece) => !piece.includes("\uFFFD")));
  });

  it("starts each reader at byte 0 and leaves readOutput's position alone", async () => {
    await using executor = new LocalBashExecutor();
    const process = await executor.start({ command: "echo out; echo err >&2" });
    await process.done;
    for (let round = 0; round < 2; round++) {
      const seen = gather();
      for await (const event of process.output()) seen.take(event);
      assert.deepEqual(seen.text, { stdout: ["out\n"], stderr: ["err\n"] });
    }
    assert.equal(process.readOutput().stdout.text, "out\n");
  });

  it("refuses a reader once the process was released", async () => {
    await using executor = new LocalBashExecutor();
    const process = await executor.start({ command: "echo gone" });
    await process.done;
    await process.release();
    await assert.rejects(process.output().next(), BashConfigError);
  });

  it("ends a reader that release() overtook with a gap that says so, from memory or the spill file", async () => {
    // All in memory (no spill file), more than one step of the reader.
    const kept = 600_000;
    await using executor = new LocalBashExecutor({ maxOutputBytes: 1_000_000 });
    const inMemory = await executor.start({ command: `head -c ${kept} /dev/zero | tr '\\0' x` });
    await inMemory.done;
    // Spilled: the head in memory, the rest only in the spill file.
    await using spilling = new LocalBashExecutor({ maxOutputBytes: 64_000 });
    const spilled = await spilling.start({ command: `head -c ${kept} /dev/zero | tr '\\0' x` });
    await spilled.done;
    for (
      const [process, reason] of [
        [inMemory, "the output was released by its owner (release())"],
        [spilled, "the spill file was removed before the reader got there (released by its owner)"],
      ] as const
    ) {
      const seen = gather();
      const reader = process.output();
      const first = await reader.next();
      assert.ok(!first.done && "text" in first.value, "the first event is text");
      seen.take(first.value);
      await process.release();
      for await (const event of reader) seen.take(event);
      const read = seen.text.stdout.join("");
      assert.ok(read.length > 0 && read.length < kept, `read ${read.length} bytes first`);
      assert.deepEqual(seen.gaps, [
        { stream: "stdout", omittedBytes: kept - read.length, offset: read.length, reason },
      ]);
    }
  });

  it("reports a character cut by the end of the stream, when nothing came before it", async () => {
    await using executor = new LocalBashExecutor();
    const process = await executor.start({ command: "printf '\\360\\237'" });
    await process.done;
    const seen = gather();
    for await (const event of process.output()) seen.take(event);
    assert.deepEqual(seen.text.stdout, [process.readOutput().stdout.text]);
    assert.deepEqual(seen.text.stdout, ["\uFFFD"]);
  });

  it("follows a running command and ends when it settles", async () => {
    await using executor = new LocalBashExecutor();
    const process = await executor.start({ command: "echo a; sleep 0.3; echo b" });
    const seen = gather();
    for await (const event of process.output()) seen.take(event);
    assert.equal(seen.text.stdout.join(""), "a\nb\n");
    assert.notEqual(process.status, "running");
  });
});
