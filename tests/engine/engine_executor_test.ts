// The base both engine executors share: each call reaches the engine its
// subclass built, and a class that extends the base without one is told what to do.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { EngineBashExecutor, LocalBashExecutor } from "../../local/mod.ts";
import { BashSpawnError } from "../../seam/mod.ts";

describe("EngineBashExecutor", () => {
  it("gives each executor its own engine", async () => {
    await using first = new LocalBashExecutor({ killGraceMs: 100 });
    await using second = new LocalBashExecutor({ killGraceMs: 200 });
    assert.deepEqual([first.config.killGraceMs, second.config.killGraceMs], [100, 200]);
    await first[Symbol.asyncDispose]();
    // The first's disposal is its own: the second still runs.
    await assert.rejects(first.run({ command: "true" }), BashSpawnError);
    assert.equal((await second.run({ command: "echo ok" })).stdout.text, "ok\n");
  });

  it("refuses a subclass that built no engine, saying what to extend", async () => {
    class Bare extends EngineBashExecutor {}
    const bare = new Bare();
    const told = /extend LocalBashExecutor or SandboxBashExecutor/;
    assert.throws(
      () => bare.config,
      (error) => error instanceof BashSpawnError && told.test(error.message),
    );
    await assert.rejects(bare.run({ command: "true" }), told);
    await assert.rejects(bare.start({ command: "true" }), told);
    await assert.rejects(bare[Symbol.asyncDispose](), told);
  });
});
