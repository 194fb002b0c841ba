import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { LocalBashExecutor } from "../../local/mod.ts";
import { seqText } from "../local/_helpers.ts";

describe("background reads and a spill file", () => {
  it("are lossy when only stderr fell behind, and name only its spill file", async () => {
    await using executor = new LocalBashExecutor({ maxOutputBytes: 1024, headBytes: 0 });
    const process = await executor.start(
      executor.resolve({ command: "seq 1 20000 >&2; echo out" }),
    );
    await process.done;
    const read = process.readOutput();
    const stream = seqText(20_000);
    assert.deepEqual(
      [
        read.stdout.truncated || read.stderr.truncated,
        read.stdout.omittedBytes + read.stderr.omittedBytes,
        read.stdout.text,
        read.stdout.spillComplete ? read.stdout.spillPath : undefined,
      ],
      [true, stream.length - 1024, "out\n", undefined],
    );
    assert.equal(
      read.stderr.text,
      `[... ${stream.length - 1024} bytes omitted ...]\n${stream.slice(-1024)}`,
    );
    assert.equal(
      readFileSync((read.stderr.spillComplete ? read.stderr.spillPath : undefined) ?? "", "latin1"),
      stream,
    );
  });

  it("name no spill path once the capped file no longer holds every byte", async () => {
    await using executor = new LocalBashExecutor({
      maxOutputBytes: 100,
      headBytes: 0,
      maxSpillBytes: 1000,
    });
    const process = await executor.start(executor.resolve({ command: "seq 1 10000" }));
    await process.done;
    const read = process.readOutput();
    assert.equal(read.stdout.truncated || read.stderr.truncated, true);
    assert.equal(
      read.stdout.spillComplete ? read.stdout.spillPath : undefined,
      undefined,
      "the capped spill file lacks dropped bytes",
    );
  });

  it("name no spill path after disposal removed it, and one while it is kept", async () => {
    for (const keepSpillFiles of [false, true]) {
      const executor = new LocalBashExecutor({ maxOutputBytes: 100, headBytes: 0, keepSpillFiles });
      const process = await executor.start(executor.resolve({ command: "seq 1 10000" }));
      await process.done;
      await executor[Symbol.asyncDispose]();
      const read = process.readOutput();
      assert.equal(read.stdout.truncated || read.stderr.truncated, true);
      if (keepSpillFiles) {
        const path = (read.stdout.spillComplete ? read.stdout.spillPath : undefined) ?? "";
        assert.equal(readFileSync(path, "latin1"), seqText(10_000));
        rmSync(dirname(path), { recursive: true });
      } else {
        assert.equal(
          read.stdout.spillComplete ? read.stdout.spillPath : undefined,
          undefined,
          "disposal removed the spill directory",
        );
      }
    }
  });
});
