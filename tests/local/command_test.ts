import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { RunningCommand } from "../../local/_command.ts";
import { ProcessControl } from "../../local/_control.ts";
import { OutputCollector } from "../../local/_output.ts";
import { runtime } from "../../local/mod.ts";
import { LocalBashProcess } from "../../local/_process.ts";
import { BashSpawnError } from "../../seam/mod.ts";
import { bashTaskHooks } from "../../tool/mod.ts";
import { assertNoneLeft, marker } from "./_helpers.ts";

/** A collector whose memory runs out after `pushes` chunks, as a huge budget's would. */
class FailingCollector extends OutputCollector {
  #left: number;
  constructor(pushes: number) {
    super({ maxBytes: 1000, headBytes: 100, maxSpillBytes: 0, spillDir: () => "/nonexistent" });
    this.#left = pushes;
  }
  override push(chunk: Uint8Array): void {
    if (this.#left-- <= 0) throw new RangeError("Array buffer allocation failed");
    super.push(chunk);
  }
}

/** `yes` (with a sleeping child) whose stdout collector runs out of memory after 3 chunks. */
async function failingRun(token: string): Promise<RunningCommand> {
  const child = await runtime.spawn({
    program: "/bin/bash",
    args: ["-c", `sleep ${token} & yes`],
    cwd: "/",
    env: {},
    stdin: "null",
    session: "detached",
  });
  return new RunningCommand({
    control: new ProcessControl(runtime, null),
    marker: `none.${token}`,
    child,
    stdout: new FailingCollector(3),
    stderr: new FailingCollector(1000),
    killGraceMs: 1000,
    drainGraceMs: 100,
    stdin: undefined,
    keepStdinOpen: false,
    // Without the stop, `yes` blocks on a full pipe until this clock.
    timeoutMs: 20_000,
  });
}

const READ_FAILURE =
  /^Reading the command's stdout failed \(Array buffer allocation failed\), so the command was stopped and its output is incomplete;/;

describe("RunningCommand", () => {
  it("never reads an error keeping output as the end of the stream: it stops the command and fails", async () => {
    const token = marker();
    const running = await failingRun(token);
    await running.settled;
    assert.equal(running.cause, null, "the wall clock must not be what ended it");
    assert.ok(running.failure instanceof BashSpawnError);
    assert.match(running.failure.message, READ_FAILURE);
    assert.ok(running.failure.cause instanceof RangeError);
    await assertNoneLeft(token);
  });

  it("a background process says why, and its task settles as failed with the reason", async () => {
    const token = marker();
    const process = new LocalBashProcess(`yes`, await failingRun(token), false, () => ({
      sandbox: undefined,
      limitHit: undefined,
    }));
    const settlement = await bashTaskHooks(process).done;
    assert.match(process.error ?? "", READ_FAILURE);
    assert.equal(settlement.status, "failed");
    assert.match(settlement.error ?? "", READ_FAILURE);
    await assertNoneLeft(token);
  });
});
