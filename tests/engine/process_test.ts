import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { LocalBashExecutor, type LocalBashExecutorConfig } from "../../local/mod.ts";
import { BashConfigError, type BashProcess, BashSpawnError } from "../../seam/mod.ts";
import { withPlan } from "./_plan.ts";
import {
  assertNoneLeft,
  marker,
  pause,
  processesWith,
  seqText,
  sha256,
  STRATEGIES,
  waitForSleep,
} from "../local/_helpers.ts";

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
    stdout += read.stdout.text;
    lossy ||= read.stdout.truncated || read.stderr.truncated;
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
      // It cannot end before the test writes a line: start() returned before it ended.
      const command = "read -r _; echo fin; exit 4";
      const process = await executor.start(executor.resolve({
        command,
        timeoutMs: 1,
        idleTimeoutMs: 1,
        keepStdinOpen: true,
      }));
      assert.equal(process.command, command);
      assert.equal(process.status, "running");
      assert.equal(process.exitCode, null);
      await process.write("go\n");
      await process.done;
      assert.equal(process.status, "completed");
      assert.equal(process.exitCode, 4);
      assert.equal(process.signal, null);
      const read = process.readOutput();
      assert.equal(read.stdout.text, "fin\n");
      assert.equal(read.status, "completed");
      assert.equal(read.exitCode, 4);
      assert.equal(read.stdout.truncated || read.stderr.truncated, false);
      assert.equal(await process.kill(), false);
    });

    it("leads its own session and group", async () => {
      await using executor = make();
      const process = await executor.start(executor.resolve({
        command: 'read -r _ _ _ _ pgrp sid _ < /proc/$$/stat; echo "$$ $pgrp $sid"',
      }));
      await process.done;
      const pid = String(process.pid);
      assert.equal(process.readOutput().stdout.text, `${pid} ${pid} ${pid}\n`);
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
      assert.equal(process.readOutput().stdout.text, "first\nsecond\nthird\neof\n");
      await assert.rejects(
        process.write("late"),
        (error: unknown) =>
          error instanceof BashConfigError &&
          /Cannot write to stdin of process \d+: stdin is closed or the command exited; start a new process/
            .test(error.message),
      );
    });

    it("refuses a write after closeStdin, closes again harmlessly, and fails a write the command never reads", async () => {
      await using executor = make();
      const closed = await executor.start(executor.resolve({
        command: "cat",
        keepStdinOpen: true,
      }));
      await closed.closeStdin();
      await assert.rejects(closed.write("x"), /stdin is closed or the command exited/);
      await closed.done;
      assert.equal(closed.exitCode, 0);
      await closed.closeStdin(); // closing again, after the exit, is harmless
      const deaf = await executor.start(executor.resolve({
        command: "sleep 0.3",
        keepStdinOpen: true,
      }));
      // Far more than a pipe holds: the write can only end when the command exits.
      await assert.rejects(
        deaf.write(new Uint8Array(4 << 20)),
        (error: unknown) =>
          error instanceof BashConfigError &&
          /Stdin of process \d+ is closed \(the command exited or stopped reading\)/.test(
            error.message,
          ),
      );
      await deaf.done;
      assert.equal(deaf.status, "completed");
    });

    it("refuses stdin writes without keepStdinOpen", async () => {
      await using executor = make();
      const process = await executor.start(executor.resolve({ command: "cat" }));
      const refused = (verb: string) => (error: unknown): boolean =>
        error instanceof BashConfigError &&
        error.message ===
          `Cannot ${verb} stdin of process ${process.pid}: it was not started with "keepStdinOpen: true"; pass that option to start()`;
      await assert.rejects(process.write("x"), refused("write to"));
      await assert.rejects(process.closeStdin(), refused("close"));
      await process.done;
      assert.equal(process.exitCode, 0);
      assert.equal(process.readOutput().stdout.text, "", "stdin was /dev/null");
      await assert.rejects(process.write("x"), refused("write to"));
    });

    it("delivers every byte once and in order across 10,000 small writes", async () => {
      await using executor = make({ maxOutputBytes: 1 << 20, headBytes: 100 });
      const process = await executor.start(executor.resolve({
        command: "for i in $(seq 1 10000); do echo $i; done",
      }));
      const { stdout, lossy } = await drain(process, 1);
      assert.equal(lossy, false);
      assert.equal(stdout, seqText(10_000));
      assert.equal(process.readOutput().stdout.text, "");
    });

    it("names spill files holding the full stream when a read falls behind", async () => {
      await using executor = make();
      const process = await executor.start(executor.resolve({
        command: "seq 1 300000; seq 1 50000 >&2",
      }));
      await process.done;
      const read = process.readOutput();
      assert.equal(read.stdout.truncated || read.stderr.truncated, true);
      const fullOut = seqText(300_000);
      const fullErr = seqText(50_000);
      assert.equal(
        read.stdout.omittedBytes + read.stderr.omittedBytes,
        fullOut.length + fullErr.length - 2 * 64_000,
      );
      assert.ok(
        (read.stdout.spillComplete ? read.stdout.spillPath : undefined) !== undefined &&
          (read.stderr.spillComplete ? read.stderr.spillPath : undefined) !== undefined,
      );
      assert.equal(sha256(readFileSync(read.stdout.spillPath!)), sha256(fullOut));
      assert.equal(sha256(readFileSync(read.stderr.spillPath!)), sha256(fullErr));
      // The 8000-byte head ends mid-line, so the marker starts a line of its own.
      assert.equal(
        read.stdout.text,
        `${fullOut.slice(0, 8_000)}\n[... ${fullOut.length - 64_000} bytes omitted ...]\n${
          fullOut.slice(-56_000)
        }`,
      );
      assert.equal(
        read.stderr.text,
        `${fullErr.slice(0, 8_000)}\n[... ${fullErr.length - 64_000} bytes omitted ...]\n${
          fullErr.slice(-56_000)
        }`,
      );
      const again = process.readOutput();
      assert.equal(again.stdout.text, "");
      assert.equal(again.stdout.truncated || again.stderr.truncated, false);
    });

    it("keeps stderr apart from stdout", async () => {
      await using executor = make();
      const process = await executor.start(executor.resolve({
        command: "echo out; echo err >&2; echo out2",
      }));
      await process.done;
      const read = process.readOutput();
      assert.equal(read.stdout.text, "out\nout2\n");
      assert.equal(read.stderr.text, "err\n");
    });

    it("reads a character split across reads intact", async () => {
      await using executor = make();
      const process = await executor.start(executor.resolve({
        command: "printf '\\xf0\\x9f'; sleep 0.3; printf '\\x98\\x80'",
      }));
      await pause(150);
      const first = process.readOutput();
      await process.done;
      assert.equal(first.stdout.text + process.readOutput().stdout.text, "\u{1F600}");
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

    it("ends by SIGTERM when killed right after start, before the new session exists", async () => {
      // A grace period this long turns a lost SIGTERM into a SIGKILL seconds later.
      await using executor = make({ killGraceMs: 20_000 });
      for (let i = 0; i < 20; i++) {
        const token = marker();
        const process = await executor.start(executor.resolve({ command: `sleep ${token}` }));
        const started = performance.now();
        assert.equal(await process.kill(), true);
        assert.equal(process.signal, "SIGTERM", `try ${i}`);
        // Below the 20 s grace a lost SIGTERM would wait for; room for a loaded machine.
        assert.ok(performance.now() - started < 15_000, `try ${i} waited for SIGKILL`);
        await assertNoneLeft(token);
      }
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
      // The grace, then SIGKILL: not the sleep (313 s); room for a loaded machine.
      assert.ok(performance.now() - started < 300 + 15_000);
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
      await using executor = make({ killGraceMs: 3000 });
      const token = marker();
      const process = await executor.start(executor.resolve({
        command: `trap '' TERM; sleep ${token}`,
      }));
      await waitForSleep(token);
      const started = performance.now();
      const first = process.kill();
      await pause(2500);
      const secondAt = performance.now() - started;
      assert.equal(await process.kill(), false);
      assert.equal(await first, true);
      const elapsed = performance.now() - started;
      // A restarted timer would fire 3000 ms after the second call, not after the first: the
      // SIGKILL at 3000 ms leaves 2500 ms for the end to be seen on a loaded machine (1.7 s was).
      assert.ok(elapsed < secondAt + 3000, `took ${elapsed} ms, as if the timer restarted`);
      assert.equal(process.signal, "SIGKILL");
    });

    it("reports a kill the command answers by exiting as killed, with its exit code", async () => {
      await using executor = make();
      const token = marker();
      const process = await executor.start(executor.resolve({
        command: `trap 'exit 7' TERM; sleep ${token} & wait`,
      }));
      await waitForSleep(token);
      assert.equal(await process.kill(), true);
      assert.deepEqual(
        [process.status, process.exitCode, process.signal],
        ["killed", 7, null],
        "the kill ended it, even though the shell exited with a code of its own",
      );
      await assertNoneLeft(token);
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
      assert.equal(process.readOutput().stdout.text, "up\n");
      await assertNoneLeft(token);
    });

    it("gets the env and stdin of run, and its sweep of children that left the group", async () => {
      await using executor = make();
      const token = marker();
      const process = await executor.start(executor.resolve({
        command: `set -m; sleep ${token} & cat; echo "$PAGER $TERM $A $SHELLSEAM_ID"`,
        stdin: "fed\n",
        env: { A: "a" },
        managedEnv: { SHELLSEAM_ID: "m" },
      }));
      await process.done;
      assert.equal(process.readOutput().stdout.text, "fed\ncat dumb a m\n");
      assert.equal(process.status, "completed");
      await assertNoneLeft(token);
    });

    it("after the shell exits: no stdin writes, kill is false and ends the children holding its pipes", async () => {
      await using executor = make({ drainGraceMs: 30_000 });
      const token = marker();
      const process = await executor.start(
        executor.resolve({ command: `sleep ${token} <&0 & exit 5`, keepStdinOpen: true }),
      );
      await waitForSleep(token);
      // The child still holds the stdin pipe, so only the shell's exit can make a write fail.
      let refused: unknown;
      const deadline = Date.now() + 5000;
      while (refused === undefined) {
        assert.ok(Date.now() < deadline, "writes were still accepted after the shell exited");
        await process.write("x").then(() => pause(10), (error: unknown) => (refused = error));
      }
      assert.ok(refused instanceof BashConfigError);
      assert.match(refused.message, /stdin is closed or the command exited/);
      assert.equal(existsSync(`/proc/${process.pid}`), false, "the shell is gone");
      assert.equal(process.status, "running", "settling waits for the pipes");
      const started = performance.now();
      assert.equal(await process.kill(), false);
      assert.ok(performance.now() - started < 5000, "the kill ended the drain wait");
      assert.equal(process.status, "completed");
      assert.equal(process.exitCode, 5);
      assert.equal(process.signal, null);
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
        assert.equal(process.readOutput().stdout.text, `${i}\n`);
      });
      await assertNoneLeft(token);
    });
  });
}

describe("LocalBashExecutor.start failures", () => {
  /** Matches a BashSpawnError with exactly this message. */
  const spawnError = (message: string) => (error: unknown): boolean =>
    error instanceof BashSpawnError && error.message === message;

  it("rejects a missing workdir, a pre-aborted signal and a disposed executor, spawning nothing", async () => {
    const executor = new LocalBashExecutor();
    const token = marker();
    for (const workdir of ["/no/such", "/dev/null"]) {
      await assert.rejects(
        executor.start(executor.resolve({ command: `sleep ${token}`, workdir })),
        spawnError(
          `Workdir "${workdir}" does not exist or is not a directory; pass an existing directory`,
        ),
      );
    }
    await assert.rejects(
      executor.start(executor.resolve({ command: `sleep ${token}`, signal: AbortSignal.abort() })),
      spawnError(
        "The signal was aborted before the command started, so nothing was run; pass a signal that is not aborted yet",
      ),
    );
    const disposed = spawnError("The executor was disposed; create a new executor to run commands");
    const planning = executor.start(executor.resolve({ command: `sleep ${token}` }));
    await executor[Symbol.asyncDispose]();
    await assert.rejects(planning, disposed, "a start still being planned when disposal began");
    await assert.rejects(executor.start(executor.resolve({ command: `sleep ${token}` })), disposed);
    assert.deepEqual(processesWith(token), []);
  });

  it(
    "kills a process whose signal aborts while it is being spawned",
    async () => {
      // Aborts its signal after `depth` microtasks, counted from the end of planning.
      let abort: () => void = () => {};
      await using executor = new LocalBashExecutor({
        ...withPlan((_spec, launch) => {
          abort();
          return Promise.resolve({ launch });
        }),
      });
      // Each depth lands the abort at another step between planning and the listener.
      for (let depth = 0; depth < 8; depth++) {
        const token = marker();
        const controller = new AbortController();
        const later = (n: number): void =>
          queueMicrotask(() => n === 0 ? controller.abort() : later(n - 1));
        abort = () => later(depth);
        const spec = executor.resolve({ command: `sleep ${token}`, signal: controller.signal });
        const process = await executor.start(spec).catch((error: unknown) => {
          assert.ok(error instanceof BashSpawnError, `depth ${depth}: ${error}`);
          return null;
        });
        if (process !== null) {
          const ended = await Promise.race([process.done.then(() => true), pause(5000)]);
          if (ended !== true) await process.kill();
          assert.equal(ended, true, `depth ${depth}: still running 5 s after the abort`);
          assert.equal(process.status, "killed", `depth ${depth}`);
        }
        await assertNoneLeft(token);
      }
    },
  );
});

describe("LocalBashProcess.done", () => {
  it("resolves even when the launch plan's describe hook throws", async () => {
    await using executor = new LocalBashExecutor({
      ...withPlan((_spec, launch) =>
        Promise.resolve({
          launch,
          describe: () => {
            throw new Error("describe bug");
          },
        })
      ),
    });
    const process = await executor.start(executor.resolve({ command: "echo ok" }));
    await process.done;
    assert.equal(process.status, "completed");
    assert.equal(process.sandbox, undefined);
    assert.equal(process.readOutput().stdout.text, "ok\n");
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
    assert.equal(finished.readOutput().stdout.text, "done\n");
    assert.equal(plain.status, "killed");
    assert.equal(stubborn.status, "killed");
    assert.equal(stubborn.signal, "SIGKILL");
  });

  it("removes the spill files of background processes unless keepSpillFiles", async () => {
    for (const keepSpillFiles of [false, true]) {
      const executor = new LocalBashExecutor({ maxOutputBytes: 10, headBytes: 5, keepSpillFiles });
      const token = marker();
      const process = await executor.start(executor.resolve({
        command: `seq 1 100; sleep ${token}`,
      }));
      let spill: string | undefined;
      const deadline = Date.now() + 5000;
      while ((spill = process.readOutput().stdout.spillPath) === undefined) {
        assert.ok(Date.now() < deadline, "no spill file appeared");
        await pause(10);
      }
      await waitForSleep(token);
      await executor[Symbol.asyncDispose]();
      assert.equal(process.status, "killed");
      assert.equal(existsSync(spill), keepSpillFiles);
      if (keepSpillFiles) {
        assert.equal(readFileSync(spill, "latin1"), seqText(100));
        rmSync(dirname(spill), { recursive: true });
      }
    }
  });
});
