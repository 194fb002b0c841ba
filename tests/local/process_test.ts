import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { LocalBashExecutor, type LocalBashExecutorConfig } from "../../local/mod.ts";
import { BashConfigError, type BashProcess, BashSpawnError } from "../../seam/mod.ts";
import {
  assertNoneLeft,
  marker,
  processesWith,
  seqText,
  sha256,
  STRATEGIES,
  waitForSleep,
} from "./_helpers.ts";

const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** Reads until the process has settled, returning every read. */
async function drain(
  process: BashProcess,
  everyMs: number,
): Promise<{ stdout: string; lossy: boolean }> {
  let stdout = "";
  let lossy = false;
  let settled = false;
  process.done.then(() => (settled = true));
  for (;;) {
    const wasSettled = settled;
    const read = process.readOutput();
    stdout += read.stdout;
    lossy ||= read.lossy;
    if (wasSettled) return { stdout, lossy };
    await pause(everyMs);
  }
}

for (const sessionStrategy of STRATEGIES) {
  const make = (config: LocalBashExecutorConfig = {}): LocalBashExecutor =>
    new LocalBashExecutor({ sessionStrategy, ...config });

  describe(`LocalBashExecutor.start (${sessionStrategy})`, () => {
    it("returns at once and settles completed", async () => {
      await using executor = make();
      const token = marker();
      const started = performance.now();
      const process = await executor.start(executor.resolve({
        command: `sleep ${token.replace("313", "0")}; echo fin; exit 4`,
        timeoutMs: 1,
      }));
      assert.ok(performance.now() - started < 1000);
      assert.equal(process.status, "running");
      assert.equal(process.exitCode, null);
      await process.done;
      assert.equal(process.status, "completed");
      assert.equal(process.exitCode, 4);
      assert.equal(process.signal, null);
      const read = process.readOutput();
      assert.equal(read.stdout, "fin\n");
      assert.equal(read.status, "completed");
      assert.equal(read.exitCode, 4);
      assert.equal(read.lossy, false);
      assert.equal(await process.kill(), false);
    });

    it("leads its own session and group", async () => {
      await using executor = make();
      const process = await executor.start(executor.resolve({
        command: 'read -r _ _ _ _ pgrp sid _ < /proc/$$/stat; echo "$$ $pgrp $sid"',
      }));
      await process.done;
      const pid = String(process.pid);
      assert.equal(process.readOutput().stdout, `${pid} ${pid} ${pid}\n`);
    });

    it("round-trips stdin through write and closeStdin", async () => {
      await using executor = make();
      const process = await executor.start(executor.resolve({
        command: "cat; echo eof",
        stdin: "first\n",
        keepStdinOpen: true,
      }));
      await process.write("second\n");
      await process.write(new TextEncoder().encode("third\n"));
      await process.closeStdin();
      await process.done;
      assert.equal(process.readOutput().stdout, "first\nsecond\nthird\neof\n");
      await assert.rejects(process.write("late"), BashConfigError);
    });

    it("refuses stdin writes without keepStdinOpen", async () => {
      await using executor = make();
      const process = await executor.start(executor.resolve({ command: "cat" }));
      await assert.rejects(process.write("x"), BashConfigError);
      await assert.rejects(process.closeStdin(), BashConfigError);
      await process.done;
      assert.equal(process.exitCode, 0);
    });

    it("delivers every byte once and in order across 10,000 small writes", async () => {
      await using executor = make({ maxOutputBytes: 1 << 20, headBytes: 100 });
      const process = await executor.start(executor.resolve({
        command: "for i in $(seq 1 10000); do echo $i; done",
      }));
      const { stdout, lossy } = await drain(process, 1);
      assert.equal(lossy, false);
      assert.equal(stdout, seqText(10_000));
      assert.equal(process.readOutput().stdout, "");
    });

    it("names spill files holding the full stream when a read falls behind", async () => {
      await using executor = make();
      const process = await executor.start(executor.resolve({
        command: "seq 1 300000; seq 1 50000 >&2",
      }));
      await process.done;
      const read = process.readOutput();
      assert.equal(read.lossy, true);
      const fullOut = seqText(300_000);
      const fullErr = seqText(50_000);
      assert.equal(read.droppedBytes, fullOut.length + fullErr.length - 2 * 64_000);
      assert.ok(read.stdoutSpillPath !== undefined && read.stderrSpillPath !== undefined);
      assert.equal(sha256(readFileSync(read.stdoutSpillPath)), sha256(fullOut));
      assert.equal(sha256(readFileSync(read.stderrSpillPath)), sha256(fullErr));
      assert.ok(read.stdout.startsWith(fullOut.slice(0, 7_000)));
      assert.ok(read.stdout.endsWith(fullOut.slice(-56_000)));
      assert.match(read.stdout, /\[\.\.\. \d+ bytes omitted \.\.\.\]/);
      const again = process.readOutput();
      assert.equal(again.stdout, "");
      assert.equal(again.lossy, false);
    });

    it("keeps stderr apart from stdout", async () => {
      await using executor = make();
      const process = await executor.start(executor.resolve({
        command: "echo out; echo err >&2; echo out2",
      }));
      await process.done;
      const read = process.readOutput();
      assert.equal(read.stdout, "out\nout2\n");
      assert.equal(read.stderr, "err\n");
    });

    it("reads a character split across reads intact", async () => {
      await using executor = make();
      const process = await executor.start(executor.resolve({
        command: "printf '\\xf0\\x9f'; sleep 0.3; printf '\\x98\\x80'",
      }));
      await pause(150);
      const first = process.readOutput();
      await process.done;
      assert.equal(first.stdout + process.readOutput().stdout, "\u{1F600}");
    });

    it("kills: true once, then false", async () => {
      await using executor = make();
      const token = marker();
      const process = await executor.start(executor.resolve({ command: `sleep ${token}` }));
      await waitForSleep(token);
      const [first, second] = await Promise.all([process.kill(), process.kill()]);
      assert.equal(first, true);
      assert.equal(second, false);
      assert.equal(await process.kill(), false);
      assert.equal(process.status, "killed");
      assert.equal(process.signal, "SIGTERM");
      await assertNoneLeft(token);
    });

    it("ends a TERM-trapping process by SIGKILL", async () => {
      await using executor = make({ killGraceMs: 300 });
      const token = marker();
      const process = await executor.start(executor.resolve({
        command: `trap '' TERM; sleep ${token}`,
      }));
      await waitForSleep(token);
      const started = performance.now();
      assert.equal(await process.kill(), true);
      assert.ok(performance.now() - started < 300 + 2000);
      assert.equal(process.status, "killed");
      assert.equal(process.signal, "SIGKILL");
      await assertNoneLeft(token);
    });

    it("is killed when its signal aborts", async () => {
      await using executor = make();
      const token = marker();
      const controller = new AbortController();
      const process = await executor.start(executor.resolve({
        command: `sleep ${token}`,
        signal: controller.signal,
      }));
      await waitForSleep(token);
      controller.abort();
      await process.done;
      assert.equal(process.status, "killed");
      assert.equal(await process.kill(), false);
      await assertNoneLeft(token);
    });

    it("does not restart the SIGKILL timer on a second kill", async () => {
      await using executor = make({ killGraceMs: 1000 });
      const token = marker();
      const process = await executor.start(executor.resolve({
        command: `trap '' TERM; sleep ${token}`,
      }));
      await waitForSleep(token);
      const started = performance.now();
      const first = process.kill();
      await pause(700);
      assert.equal(await process.kill(), false);
      assert.equal(await first, true);
      const elapsed = performance.now() - started;
      assert.ok(elapsed < 1000 + 700, `took ${elapsed} ms, as if the timer restarted`);
      assert.equal(process.signal, "SIGKILL");
    });

    it("reports a self-signal as killed with that signal", async () => {
      await using executor = make();
      const process = await executor.start(executor.resolve({ command: "kill -USR1 $$" }));
      await process.done;
      assert.equal(process.status, "killed");
      assert.equal(process.signal, "SIGUSR1");
      assert.equal(process.readOutput().status, "killed");
    });

    it("cleans up background children when the shell exits", async () => {
      await using executor = make();
      const token = marker();
      const process = await executor.start(
        executor.resolve({ command: `sleep ${token} & echo up` }),
      );
      await process.done;
      assert.equal(process.status, "completed");
      assert.equal(process.readOutput().stdout, "up\n");
      await assertNoneLeft(token);
    });

    it("settles 100 processes started at once and leaves nothing", async () => {
      await using executor = make();
      const token = marker();
      const processes = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          executor.start(executor.resolve({
            command: `echo ${i}; sleep ${token} & sleep 0.${i % 10}`,
          }))),
      );
      await Promise.all(processes.map((process) => process.done));
      processes.forEach((process, i) => {
        assert.equal(process.status, "completed");
        assert.equal(process.readOutput().stdout, `${i}\n`);
      });
      await assertNoneLeft(token);
    });
  });
}

describe("LocalBashExecutor.start failures", () => {
  it("rejects a missing workdir, a pre-aborted signal and a disposed executor", async () => {
    const executor = new LocalBashExecutor();
    const token = marker();
    await assert.rejects(
      executor.start(executor.resolve({ command: `sleep ${token}`, workdir: "/no/such" })),
      BashSpawnError,
    );
    await assert.rejects(
      executor.start(executor.resolve({ command: `sleep ${token}`, signal: AbortSignal.abort() })),
      BashSpawnError,
    );
    await executor[Symbol.asyncDispose]();
    await assert.rejects(
      executor.start(executor.resolve({ command: `sleep ${token}` })),
      BashSpawnError,
    );
    assert.deepEqual(processesWith(token), []);
  });
});

describe("LocalBashExecutor disposal with background processes", () => {
  it("kills and awaits running ones and leaves settled ones alone", async () => {
    const executor = new LocalBashExecutor({ killGraceMs: 300 });
    const token = marker();
    const finished = await executor.start(executor.resolve({ command: "echo done" }));
    await finished.done;
    const plain = await executor.start(executor.resolve({ command: `sleep ${token}` }));
    const stubborn = await executor.start(executor.resolve({
      command: `trap '' TERM; sleep ${token}`,
    }));
    await waitForSleep(token, 2);
    await executor[Symbol.asyncDispose]();
    assert.deepEqual(processesWith(token), []);
    assert.equal(finished.status, "completed");
    assert.equal(finished.readOutput().stdout, "done\n");
    assert.equal(plain.status, "killed");
    assert.equal(stubborn.status, "killed");
    assert.equal(stubborn.signal, "SIGKILL");
  });
});
