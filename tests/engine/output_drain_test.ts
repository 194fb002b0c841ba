import assert from "node:assert/strict";
import process from "node:process";
import { type Runtime, runtime, type SpawnRequest } from "../../local/mod.ts";
import { WATCHDOG_NAME } from "../../engine/_watchdog.ts";
import { marker, pause, processesWith, until } from "../local/_helpers.ts";
import { spawn } from "node:child_process";
import { describe } from "node:test";
import { LocalBashExecutor } from "../../local/mod.ts";
import { forEachStrategy, it } from "../local/_executor.ts";
import { stressSized } from "../_stress.ts";

// After the command exits, its pipes are read to their end: a reader that is
// slow (a loaded machine) loses nothing, and a read that is cut short says so.

/**
 * A runtime whose commands' stdout reaches the executor `piece` bytes at a
 * time, one piece every `everyMs`: the bytes wait in the pipe meanwhile, as
 * they do for a reader held back by a loaded machine.
 */
function tricklingRuntime(piece: number, everyMs: number): Runtime {
  return {
    ...runtime,
    spawn: async (request: SpawnRequest) => {
      const child = await runtime.spawn(request);
      // The executor's watchdog answers on its stdout too.
      if (request.args.includes(WATCHDOG_NAME)) return child;
      const source = child.stdout.getReader();
      let held: Uint8Array = new Uint8Array(0);
      const stdout = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (held.length === 0) {
            const { done, value } = await source.read();
            if (done) return controller.close();
            held = value;
          }
          await pause(everyMs);
          controller.enqueue(held.slice(0, piece));
          held = held.subarray(piece);
        },
        cancel: (reason) => source.cancel(reason),
      }, { highWaterMark: 0 });
      return { ...child, stdout };
    },
  };
}

/**
 * Kills the holders `escaped` started (their own session: no executor sees
 * them, by design) until none carries `token`: a holder still between its
 * shell and the `exec` of its program may not show the token at one look.
 */
async function killHolders(token: string): Promise<void> {
  await until(
    () => {
      const left = processesWith(token);
      for (const pid of left) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // It ended since the look.
        }
      }
      return left.length === 0;
    },
    `the holders carrying "${token}" to end`,
    10_000,
  );
}

/**
 * A command that prints `before`, leaves `holder` (a shell command) running
 * with its pipes where the sweep cannot find it (env -i drops the marker,
 * setsid leaves the session; no cgroup is asked for), and prints `after`
 * once it has left.
 */
function escaped(holder: string): string {
  return `echo before; left=$(mktemp -u)
env -i setsid /bin/sh -c ": > $left; ${holder}" &
while [ ! -e "$left" ]; do sleep 0.01; done; rm "$left"; echo after`;
}

forEachStrategy("LocalBashExecutor: output after the command exited", (make) => {
  it("reads the pipe to its end while bytes keep arriving, past the drain grace", async () => {
    // 60,000 bytes fit in the pipe, so the writer exits at once; the reader
    // then takes 60 pieces 30 ms apart, far longer than the drain grace.
    await using executor = make({ drainGraceMs: 50, runtime: tricklingRuntime(1000, 30) });
    const result = await executor.run({ command: "head -c 60000 /dev/zero | tr '\\0' x" });
    assert.equal(result.exitCode, 0);
    assert.equal(result.stdout.totalBytes, 60_000);
    assert.equal(result.stdout.text, "x".repeat(60_000));
    assert.equal(result.stdout.cut, undefined);
  });

  it("stops reading a quiet pipe that a process it cannot see holds, and says so", async () => {
    const token = marker();
    await using executor = make({ drainGraceMs: 50 });
    try {
      const result = await executor.run({
        command: escaped(`exec sleep ${token}`),
      });
      assert.equal(result.exitCode, 0);
      assert.equal(result.stdout.text, "before\nafter\n");
      assert.match(
        result.stdout.cut ?? "",
        /^nothing came for 1000 ms after the command's processes were stopped, and a process the census cannot see .* still holds the pipe$/,
      );
      // stderr was held open by the same process.
      assert.equal(result.stderr.text, "");
      assert.equal(result.stderr.cut, result.stdout.cut);
    } finally {
      await killHolders(token);
    }
  });

  it("says so in a background process's last read too", async () => {
    const token = marker();
    await using executor = make({ drainGraceMs: 50 });
    try {
      const started = await executor.start({
        command: escaped(`exec sleep ${token} 2>/dev/null`),
      });
      await started.done;
      const read = started.readOutput();
      assert.equal(read.stdout.text, "before\nafter\n");
      assert.match(read.stdout.cut ?? "", /^nothing came for 1000 ms .* still holds the pipe$/);
      assert.equal(read.stderr.cut, undefined);
      await started.release();
    } finally {
      await killHolders(token);
    }
  });

  it("ends a cut stream of a background process's output() with a gap that says so", async () => {
    const token = marker();
    await using executor = make({ drainGraceMs: 50 });
    try {
      const started = await executor.start({
        command: escaped(`exec sleep ${token} 2>/dev/null`),
      });
      // One reader from the start, and one that comes after the process settled.
      const early = Array.fromAsync(started.output());
      await started.done;
      for (const events of [await early, await Array.fromAsync(started.output())]) {
        const stdout = events.filter((event) => event.stream === "stdout");
        const last = stdout.at(-1);
        assert.ok(last !== undefined && "omittedBytes" in last, JSON.stringify(events));
        assert.equal(last.omittedBytes, null);
        assert.equal(last.offset, "before\nafter\n".length);
        assert.match(last.reason, /^nothing came for 1000 ms .* still holds the pipe$/);
        assert.equal(last.reason, started.readOutput().stdout.cut ?? "not cut");
        const text = stdout.map((event) => "text" in event ? event.text : "").join("");
        assert.equal(text, "before\nafter\n");
        assert.equal(stdout.filter((event) => "omittedBytes" in event).length, 1);
        // stderr was not held, so it ends with no gap.
        assert.deepEqual(
          events.filter((event) => "omittedBytes" in event && event.stream === "stderr"),
          [],
        );
      }
      await started.release();
    } finally {
      await killHolders(token);
    }
  });

  it("stops reading a pipe that a process it cannot see keeps writing to, and says so", async () => {
    const token = marker();
    await using executor = make({ drainGraceMs: 50, maxSpillBytes: 0 });
    try {
      const result = await executor.run({
        command: escaped(`exec yes ${token} 2>/dev/null`),
      });
      assert.equal(result.exitCode, 0);
      assert.ok(
        result.stdout.totalBytes > 64 * 1024 * 1024,
        `${result.stdout.totalBytes}: ${result.stdout.cut}`,
      );
      assert.match(
        result.stdout.cut ?? "",
        /^more than 67108864 bytes came after the command's processes were stopped, so a process the census cannot see .* still writes to the pipe$/,
      );
      assert.equal(result.stderr.cut, undefined);
    } finally {
      await killHolders(token);
    }
  });
});

/**
 * CPU busy loops (under a timeout, should the test die first) while `body`
 * runs, killed when it ends: two under `deno task test:stress` (beside the
 * two it runs), none in any other run. There the suite's other files load
 * the machine, and the case that catches a reader held back past a deadline
 * whatever the load ("reads the pipe to its end while bytes keep arriving")
 * is above; two loops of its own cost the suite twice this case's time.
 */
async function underLoad<T>(body: () => Promise<T>): Promise<T> {
  const loops = Array.from(
    { length: stressSized(0, 2) },
    () => spawn("timeout", ["120", "bash", "-c", "while :; do :; done"], { stdio: "ignore" }),
  );
  try {
    return await body();
  } finally {
    // timeout hands the TERM on to its bash.
    await Promise.all(loops.map((loop) =>
      new Promise((done) => {
        loop.once("exit", done);
        if (loop.exitCode === null && loop.signalCode === null) loop.kill("SIGTERM");
        else done(null);
      })
    ));
  }
}

describe("LocalBashExecutor: output of many runs on a loaded machine", () => {
  it("every result holds all its bytes, or says it was cut", async () => {
    const runs = 100;
    const header = "header\n";
    await using executor = new LocalBashExecutor({ drainGraceMs: 20 });
    const results = await underLoad(() =>
      Promise.all(Array.from({ length: runs }, () =>
        executor.run({
          command: `printf '${header}'; head -c 100000 /dev/zero | tr '\\0' x; echo err >&2`,
          timeoutMs: 120_000,
        })))
    );
    const silentlyShort = results.filter((result) =>
      result.exitCode !== 0 ||
      (result.stdout.totalBytes !== header.length + 100_000 && result.stdout.cut === undefined) ||
      (result.stderr.text !== "err\n" && result.stderr.cut === undefined)
    ).map((result) => ({
      exitCode: result.exitCode,
      stdout: result.stdout.totalBytes,
      stderr: result.stderr.text,
    }));
    assert.deepEqual(silentlyShort, [], `${silentlyShort.length} of ${runs} runs lost output`);
    // Nothing holds the pipes after these commands exit: none may be cut.
    assert.deepEqual(results.filter((result) => result.stdout.cut ?? result.stderr.cut), []);
  });
});
