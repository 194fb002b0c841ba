import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { LocalBashExecutor } from "../../local/mod.ts";
import { seqText } from "./_helpers.ts";

describe("background reads and a capped spill file", () => {
  it("name a spill path only while its file holds every byte of the stream", async () => {
    await using executor = new LocalBashExecutor({
      maxOutputBytes: 100,
      headBytes: 0,
      maxSpillBytes: 1000,
    });
    const process = await executor.start(executor.resolve({ command: "seq 1 10000" }));
    await process.done;
    const read = process.readOutput();
    assert.equal(read.lossy, true);
    if (read.stdoutSpillPath !== undefined) {
      assert.equal(
        readFileSync(read.stdoutSpillPath, "latin1"),
        seqText(10_000),
        "the named spill file was capped, so it does not hold the bytes this read dropped",
      );
    }
  });
});
