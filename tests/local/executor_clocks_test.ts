import assert from "node:assert/strict";
import { LocalBashExecutor } from "../../local/mod.ts";
import { BashSpawnError } from "../../seam/mod.ts";
import { withPlan } from "../engine/_plan.ts";
import {
  abortAfterMicrotasks,
  assertNoneLeft,
  marker,
  processesWith,
  waitForSleep,
} from "./_helpers.ts";
import { forEachStrategy, it } from "./_executor.ts";

forEachStrategy("LocalBashExecutor: clocks, kills and aborts", (make, sessionStrategy) => {
  it("kills on timeout and says so", async () => {
    await using executor = make();
    const token = marker();
    const result = await executor.run(
      executor.resolve({ command: `sleep ${token}; echo late`, timeoutMs: 200 }),
    );
    assert.equal(result.timedOut, true);
    assert.equal(result.idledOut, false);
    assert.equal(result.aborted, false);
    assert.equal(result.timeoutMs, 200);
    assert.equal(result.signal, "SIGTERM");
    assert.equal(result.stdout.text, "");
    // Far below the sleep (313 s), far above a loaded machine's delays.
    assert.ok(result.durationMs < 30_000, `took ${result.durationMs} ms`);
    await assertNoneLeft(token);
  });

  it("kills after the idle time and keeps a chatty command alive", async () => {
    await using executor = make();
    const token = marker();
    const idle = await executor.run(
      executor.resolve({ command: `echo start; sleep ${token}`, idleTimeoutMs: 300 }),
    );
    assert.equal(idle.idledOut, true);
    assert.equal(idle.timedOut, false);
    assert.equal(idle.stdout.text, "start\n");
    await assertNoneLeft(token);
    // A line every 100 ms for 3 s against an idle time of 2 s: a loaded machine may stall a
    // line for a while (600 ms was seen at a load of 11 on 2 cores), not for 20 lines' time.
    const chatty = await executor.run(executor.resolve({
      command: "for i in $(seq 1 30); do echo $i; sleep 0.1; done",
      idleTimeoutMs: 2000,
    }));
    // It ran for longer than the idle time, but never went quiet for that long.
    assert.ok(chatty.durationMs > 2000, `${chatty.durationMs} ms`);
    assert.equal(chatty.idledOut, false);
    assert.equal(chatty.exitCode, 0);
  });

  it("ends a TERM-trapping command by SIGKILL after the grace period", async () => {
    await using executor = make({ killGraceMs: 500 });
    const token = marker();
    // The wall clock doubles until it runs out after the trap is set (on a loaded machine
    // the shell can take longer than 200 ms to get there): the case starts from that event.
    let timeoutMs = 200;
    const run = () =>
      executor.run(executor.resolve({
        command: `trap '' TERM; echo armed; sleep ${token}; echo survived`,
        timeoutMs,
      }));
    let result = await run();
    while (result.stdout.text !== "armed\n" && timeoutMs < 6400) {
      timeoutMs *= 2;
      result = await run();
    }
    assert.equal(result.stdout.text, "armed\n");
    assert.equal(result.signal, "SIGKILL");
    assert.equal(result.timedOut, true);
    // Dead at the SIGKILL step: not before the grace ran out, and long before the sleep's end.
    assert.ok(result.durationMs >= timeoutMs + 500 - 20, `took only ${result.durationMs} ms`);
    assert.ok(result.durationMs < 30_000, `took ${result.durationMs} ms`);
    await assertNoneLeft(token);
  });

  it("starts the wall clock when the command starts, after its launch's setup", async () => {
    const timeoutMs = 2000;
    await using executor = new LocalBashExecutor({
      sessionStrategy,
      ...withPlan((_spec, launch) => {
        // A runner whose setup outlasts the wall clock before it says the command started
        // (the start byte, see LaunchPlan.announcesStart), then runs it.
        const setup = `sleep ${(timeoutMs + 500) / 1000}; printf '\\006'`;
        return Promise.resolve({
          launch: {
            ...launch,
            args: [...launch.args.slice(0, -1), `${setup}; ${launch.args.at(-1)}`],
          },
          announcesStart: { retry: () => false },
        });
      }),
    });
    const result = await executor.run(executor.resolve({ command: "echo ran", timeoutMs }));
    assert.deepEqual([result.timedOut, result.exitCode, result.stdout.text], [false, 0, "ran\n"]);
    // The run's duration is measured over the same span: from the start, without the setup.
    assert.ok(result.durationMs < timeoutMs + 500, `took ${result.durationMs} ms`);
  });

  it("aborts mid-run", async () => {
    await using executor = make();
    const token = marker();
    const controller = new AbortController();
    const running = executor.run(executor.resolve({
      command: `echo begun; sleep ${token}`,
      signal: controller.signal,
    }));
    await waitForSleep(token);
    controller.abort();
    const result = await running;
    assert.equal(result.aborted, true);
    assert.equal(result.timedOut, false);
    assert.equal(result.stdout.text, "begun\n");
    await assertNoneLeft(token);
  });

  it("kills a command whose signal aborts while it is being spawned", async () => {
    let onPlanned = (): void => {};
    await using executor = new LocalBashExecutor({
      sessionStrategy,
      ...withPlan((_spec, launch) => {
        onPlanned();
        return Promise.resolve({ launch });
      }),
    });
    // Each depth lands the abort at another step between planning and the abort listener.
    for (let depth = 0; depth < 8; depth++) {
      const controller = new AbortController();
      onPlanned = () => abortAfterMicrotasks(controller, depth);
      const token = marker();
      // A lost abort would show as a timeout.
      const spec = executor.resolve({
        command: `sleep ${token}`,
        signal: controller.signal,
        timeoutMs: 3000,
      });
      const result = await executor.run(spec).catch((error: unknown) => {
        assert.ok(error instanceof BashSpawnError, `depth ${depth}: ${error}`);
        return null;
      });
      if (result !== null) assert.equal(result.aborted, true, `depth ${depth}`);
      await assertNoneLeft(token);
    }
  });

  it("rejects a pre-aborted signal and spawns nothing", async () => {
    await using executor = make();
    const token = marker();
    await assert.rejects(
      executor.run(executor.resolve({
        command: `sleep ${token}`,
        signal: AbortSignal.abort(),
        timeoutMs: 2000,
      })),
      BashSpawnError,
    );
    assert.deepEqual(processesWith(token), []);
  });

  it("keeps the first cause and does not restart the grace on a second kill", async () => {
    const graceMs = 5000;
    await using executor = make({ killGraceMs: graceMs });
    const token = marker();
    const controller = new AbortController();
    // The command traps the timeout's SIGTERM and says so, which starts this
    // test's clock (an event); the abort comes half a grace later, so the
    // timeout is the first cause whatever the load. The sleep runs in the
    // background so that bash runs the trap at once, and again after each
    // signal, until the SIGKILL.
    let said = "";
    let termSeen: number | undefined;
    let late: ReturnType<typeof setTimeout> | undefined;
    const result = await executor.run(executor.resolve({
      command: `trap 'echo term' TERM; while :; do sleep ${token} & wait; done`,
      timeoutMs: 1500,
      signal: controller.signal,
      onOutput: ({ text }) => {
        said += text;
        if (said.includes("term") && termSeen === undefined) {
          termSeen = performance.now();
          late = setTimeout(() => controller.abort(), graceMs / 2);
        }
      },
    }));
    const killedAfter = performance.now() - (termSeen ?? Number.NaN);
    clearTimeout(late);
    assert.match(said, /^term\n/, "the command trapped the timeout's SIGTERM");
    assert.equal(result.timedOut, true);
    assert.equal(result.aborted, false);
    assert.equal(result.signal, "SIGKILL");
    // One grace from the timeout's SIGTERM; a grace restarted by the abort would end 1.5 grace after
    // it at the earliest (no timer fires early). What lies between is the margin for the settling
    // after the kill, which is in both (at load 17, 1.4 to 1.6 s).
    assert.ok(
      killedAfter < graceMs * 1.45,
      `killed ${Math.round(killedAfter)} ms after the SIGTERM`,
    );
    await assertNoneLeft(token);
  });

  it("reports a command that kills itself as neither timed out nor aborted", async () => {
    await using executor = make();
    const result = await executor.run(executor.resolve({ command: "kill -TERM $$" }));
    assert.equal(result.signal, "SIGTERM");
    assert.equal(result.exitCode, null);
    assert.equal(result.timedOut || result.idledOut || result.aborted, false);
  });
});
