// What an executor starts ahead at construction, off the first call's path:
// the first backend's probe. Seen through an injected runtime that records
// every spawn.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { runtime } from "../../local/mod.ts";
import {
  executorFor,
  probeHere,
  recording,
  skipUnless,
  tempWorkspace,
  until,
} from "./_fixtures.ts";

const statuses = await probeHere();
const skip = skipUnless(statuses, "bwrap");

const probing = (line: string) => line.includes("bwrap") && line.endsWith("-c true");

describe("SandboxBashExecutor started ahead", () => {
  it("probes its first backend at construction, before any call", { skip }, async () => {
    using workspace = tempWorkspace();
    const { runtime, spawned } = recording();
    await using executor = executorFor("bwrap", workspace, {
      runtime,
      defaultMode: "workspace-write",
    });
    await until(() => spawned.some(({ line }) => probing(line)), 30_000, "the probe");
    const probes = spawned.filter(({ line }) => probing(line)).length;
    const result = await executor.run(executor.resolve({ command: "echo hi" }));
    assert.equal(result.stdout.text, "hi\n");
    assert.equal(result.sandbox?.backend, "bwrap");
    assert.equal(spawned.filter(({ line }) => probing(line)).length, probes, "probed again");
  });

  it("leaves nothing running when disposed while the probe runs", { skip }, async () => {
    using workspace = tempWorkspace();
    const { runtime: recorder, spawned } = recording();
    const executor = executorFor("bwrap", workspace, { runtime: recorder });
    await until(() => spawned.some(({ line }) => probing(line)), 30_000, "the probe");
    await executor[Symbol.asyncDispose]();
    for (const { pid, line } of spawned) {
      assert.equal(runtime.kill(pid, 0), false, `${pid} (${line}) still runs`);
    }
    await assert.rejects(executor.run(executor.resolve({ command: "true" })), /disposed/);
  });
});
