import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { seqText, sha256 } from "./_helpers.ts";
import { forEachStrategy, it, recordingStdoutChunks } from "./_executor.ts";

forEachStrategy("LocalBashExecutor: output: head, tail, spill and encoding", (make) => {
  it("keeps head and tail and spills the whole stream", async () => {
    await using executor = make();
    const expected = seqText(400_000);
    const result = await executor.run(executor.resolve({ command: "seq 1 400000" }));
    const out = result.stdout;
    assert.equal(out.truncated, true);
    assert.equal(out.totalBytes, Buffer.byteLength(expected));
    assert.ok(out.spillPath !== undefined);
    assert.equal(out.spillComplete, true);
    assert.equal(statSync(out.spillPath).mode & 0o777, 0o600);
    assert.equal(statSync(join(out.spillPath, "..")).mode & 0o777, 0o700);
    assert.equal(sha256(readFileSync(out.spillPath)), sha256(expected));
    const head = expected.slice(0, 8_000);
    const tail = expected.slice(-56_000);
    assert.equal(out.omittedBytes, out.totalBytes - 64_000);
    const gap = head.endsWith("\n") ? "" : "\n";
    assert.equal(out.text, `${head}${gap}[... ${out.omittedBytes} bytes omitted ...]\n${tail}`);
  });

  it("does not truncate output exactly at the cap", async () => {
    await using executor = make({ maxOutputBytes: 5000, headBytes: 1000 });
    const result = await executor.run(executor.resolve({
      command: "head -c 5000 /dev/zero | tr '\\0' x",
    }));
    assert.equal(result.stdout.truncated, false);
    assert.equal(result.stdout.text, "x".repeat(5000));
    assert.equal(result.stdout.spillPath, undefined);
    assert.equal(result.stdout.spillComplete, false);
    const over = await executor.run(executor.resolve({
      command: "head -c 5001 /dev/zero | tr '\\0' x",
    }));
    assert.equal(over.stdout.truncated, true);
    assert.equal(over.stdout.omittedBytes, 1);
  });

  it("honours stdoutMaxBytes", async () => {
    await using executor = make();
    const result = await executor.run(executor.resolve({
      command: "seq 1 100000",
      stdoutMaxBytes: 200_000,
    }));
    assert.equal(result.stdout.truncated, true);
    assert.equal(result.stdout.omittedBytes, result.stdout.totalBytes - 200_000);
    const lowered = await executor.run(executor.resolve({
      command: "seq 1 1000; seq 1 1000 >&2",
      stdoutMaxBytes: 100,
    }));
    assert.equal(lowered.stdout.omittedBytes, lowered.stdout.totalBytes - 100);
    assert.equal(lowered.stderr.truncated, false);
  });

  it("stops the spill file at maxSpillBytes", async () => {
    await using executor = make({ maxSpillBytes: 100_000 });
    const expected = seqText(200_000);
    const result = await executor.run(executor.resolve({ command: "seq 1 200000" }));
    const { spillPath, spillComplete } = result.stdout;
    assert.ok(spillPath !== undefined);
    assert.equal(spillComplete, false);
    const spilled = readFileSync(spillPath, "latin1");
    assert.equal(spilled, expected.slice(0, 100_000));
  });

  it("keeps a 4-byte character split across chunks intact", async () => {
    const chunks = await recordingStdoutChunks(async (recording) => {
      await using executor = make({ runtime: recording });
      return await executor.run({
        command: "printf 'a\\xf0\\x9f'; sleep 0.3; printf '\\x98\\x80b'",
      });
    });
    // The character really arrived in two reads.
    assert.deepEqual(chunks.chunks, [[0x61, 0xf0, 0x9f], [0x98, 0x80, 0x62]]);
    assert.equal(chunks.result.stdout.text, "a\u{1F600}b");
    assert.equal(chunks.result.stdout.invalidUtf8Bytes, 0);
  });

  it("counts invalid UTF-8 bytes and keeps raw bytes in the spill", async () => {
    await using executor = make({ maxOutputBytes: 100, headBytes: 10 });
    const small = await executor.run(executor.resolve({ command: "printf 'a\\xffb\\xc3'" }));
    assert.equal(small.stdout.text, "a\uFFFDb\uFFFD");
    assert.equal(small.stdout.invalidUtf8Bytes, 2);
    const big = await executor.run(executor.resolve({
      command: "printf '\\xfe%.0s' $(seq 1 300)",
    }));
    assert.ok(big.stdout.spillPath !== undefined);
    assert.deepEqual(readFileSync(big.stdout.spillPath), Buffer.alloc(300, 0xfe));
    assert.equal(big.stdout.invalidUtf8Bytes, 100);
  });

  it("stays within its memory bound under `yes`", async () => {
    await using executor = make({ maxSpillBytes: 1 << 20 });
    await executor.run(executor.resolve({ command: "true" }));
    const before = process.memoryUsage();
    const result = await executor.run(executor.resolve({ command: "yes", timeoutMs: 1000 }));
    const after = process.memoryUsage();
    const grown = after.heapUsed + after.external - before.heapUsed - before.external;
    // `yes` writes about 1 GB a second here; uncollected garbage chunks stay well below this.
    assert.ok(
      grown < 256 * 1024 * 1024,
      `memory grew by ${grown} bytes for ${result.stdout.totalBytes} bytes of output`,
    );
    assert.equal(result.timedOut, true);
    assert.ok(result.stdout.totalBytes > 1 << 20, `only ${result.stdout.totalBytes} bytes`);
    assert.ok(result.stdout.text.length <= 64_000 + 100, `${result.stdout.text.length} chars`);
    assert.equal(result.stdout.spillComplete, false);
    assert.ok(result.stdout.spillPath !== undefined);
    assert.equal(statSync(result.stdout.spillPath).size, 1 << 20);
  });
});
