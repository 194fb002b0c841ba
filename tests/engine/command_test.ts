import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunningCommand } from "../../engine/_command.ts";
import { ProcessControl } from "../../engine/_control.ts";
import { OutputCollector } from "../../engine/_output.ts";
import { runtime } from "../../local/mod.ts";
import { LocalBashProcess } from "../../engine/_process.ts";
import { BashSpawnError } from "../../seam/mod.ts";
import { bashTaskHooks } from "../../tool/mod.ts";
import { assertNoneLeft, marker } from "../local/_helpers.ts";
import { command } from "./_running.ts";

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

describe("RunningCommand lifecycle", () => {
  it("settles with the exit status, both streams collected, and no cause", async () => {
    const running = await command("echo out; echo err >&2; exit 5");
    await running.settled;
    assert.equal(running.isSettled, true);
    assert.deepEqual(running.exit, { code: 5, signal: null });
    assert.equal(running.cause, null);
    assert.equal(running.stdout.collect().text, "out\n");
    assert.equal(running.stderr.collect().text, "err\n");
    assert.equal(running.failure, undefined);
    assert.equal(running.kill("kill"), false, "a settled command is not killed");
  });

  it("writes stdin and closes it", async () => {
    const running = await command("cat", { stdin: new TextEncoder().encode("piped\n") });
    await running.settled;
    assert.equal(running.stdout.collect().text, "piped\n");
  });

  it("keeps the first cause: the wall clock, then a later kill changes nothing", async () => {
    const token = marker();
    const running = await command(`sleep ${token}`, { timeoutMs: 100 });
    await running.settled;
    assert.equal(running.cause, "timeout");
    assert.equal(running.exit?.signal, "SIGTERM");
    assert.equal(running.kill("kill"), false);
    await assertNoneLeft(token);
  });

  it("stops on the idle clock when nothing is printed, and on an abort", async () => {
    const idle = await command("echo once; sleep 30", { idleTimeoutMs: 150, timeoutMs: 20_000 });
    await idle.settled;
    assert.equal(idle.cause, "idle");
    const controller = new AbortController();
    const aborted = await command("sleep 30", { signal: controller.signal, timeoutMs: 20_000 });
    controller.abort();
    await aborted.settled;
    assert.equal(aborted.cause, "abort");
  });

  it("hands onOutput whole characters and the bytes as read, per stream, and keeps going when it throws", async () => {
    const chunks: { stream: string; bytes: Uint8Array; text: string }[] = [];
    // The second half is written once the first was handed over (an event, not a clock).
    const dir = mkdtempSync(join(tmpdir(), "shellseam-onoutput-"));
    const seen = join(dir, "seen");
    const running = await command(
      `printf 'a\\360\\237'; until [ -e ${seen} ]; do sleep 0.01; done; ` +
        "printf '\\230\\200b'; printf 'e' >&2",
      {
        onOutput: (chunk) => {
          chunks.push(chunk);
          if (chunk.stream === "stdout") writeFileSync(seen, "");
        },
      },
    );
    await running.settled;
    rmSync(dir, { recursive: true, force: true });
    const stdout = chunks.filter((chunk) => chunk.stream === "stdout");
    assert.deepEqual(stdout.map((chunk) => chunk.text), ["a", "\u{1F600}b"]);
    // The character cut between the reads comes whole in the text, and as read in the bytes.
    assert.deepEqual(stdout.map((chunk) => [...chunk.bytes]), [[0x61, 0xf0, 0x9f], [
      0x98,
      0x80,
      0x62,
    ]]);
    // As plain arrays: the bytes are a Buffer on Node, a Uint8Array on Deno.
    assert.deepEqual(
      chunks.filter((chunk) => chunk.stream === "stderr").map((chunk) => [
        chunk.stream,
        [...chunk.bytes],
        chunk.text,
      ]),
      [["stderr", [0x65], "e"]],
    );
    assert.equal(running.onOutputError, undefined);
    let calls = 0;
    const throwing = await command("echo a; sleep 0.1; echo b", {
      onOutput: () => {
        calls++;
        throw new RangeError("no room");
      },
    });
    await throwing.settled;
    assert.equal(calls, 1);
    assert.equal(throwing.onOutputError, "no room");
    assert.equal(throwing.stdout.collect().text, "a\nb\n");
  });
});
