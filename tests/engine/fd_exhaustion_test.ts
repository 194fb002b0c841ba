import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { closeSync } from "node:fs";
import { exhaustDescriptors } from "../local/_helpers.ts";
import { LocalBashExecutor } from "../../local/mod.ts";
import { BashSpawnError } from "../../seam/mod.ts";

describe("a process out of file descriptors", () => {
  it("fails each run with 'too many open files', and later runs work as before (/dev/stderr too)", async () => {
    await using executor = new LocalBashExecutor();
    const warm = await executor.run(executor.resolve({ command: "echo hi > /dev/stderr" }));
    assert.equal(warm.stderr.text, "hi\n");
    const held = exhaustDescriptors();
    try {
      // Enough runs to use up any named pipes made in advance (Node), so a
      // refill is attempted while no descriptor is free.
      for (let i = 0; i < 40; i++) {
        await assert.rejects(
          executor.run(executor.resolve({ command: "true" })),
          (error: unknown) =>
            error instanceof BashSpawnError &&
            /: too many open files \(EMFILE\): this process has run out of file descriptors; close descriptors/
              .test(error.message),
        );
      }
    } finally {
      for (const fd of held) closeSync(fd);
    }
    const after = await executor.run(
      executor.resolve({ command: "echo out; echo err > /dev/stderr; echo again > /dev/stdout" }),
    );
    assert.equal(after.stderr.text, "err\n");
    assert.equal(after.stdout.text, "out\nagain\n");
    assert.equal(after.exitCode, 0);
  });
});
