import assert from "node:assert/strict";
import { type BashRunResult, BashSpawnError } from "../seam/mod.ts";
import type { CaseDefinition } from "./_harness.ts";

/** The three causes, in the order timedOut, idledOut, aborted. */
function causes(result: BashRunResult): boolean[] {
  return [result.timedOut, result.idledOut, result.aborted];
}

/** The wall clock, the idle clock, the caller's abort, and how a command is ended. */
export const clockCases: readonly CaseDefinition[] = [
  {
    name: "kills a command when the wall clock runs out and says so",
    async body(h) {
      const executor = await h.executor();
      const marker = h.marker();
      const result = await h.run(executor, {
        command: `echo begun; ${marker.sleep}; echo late`,
        timeoutMs: 300,
      });
      assert.deepEqual(causes(result), [true, false, false]);
      assert.equal(result.timeoutMs, 300);
      assert.equal(result.stdout.text, "begun\n");
      assert.equal(result.exitCode, null);
      assert.equal(result.signal, "SIGTERM");
      await h.assertNoneLeft(marker);
    },
  },
  {
    name: "kills a command that goes quiet for the idle time, and not one that keeps talking",
    async body(h) {
      const executor = await h.executor();
      const marker = h.marker();
      const quiet = await h.run(executor, {
        command: `echo start; ${marker.sleep}`,
        idleTimeoutMs: 300,
      });
      assert.deepEqual(causes(quiet), [false, true, false]);
      assert.equal(quiet.stdout.text, "start\n");
      await h.assertNoneLeft(marker);
      const chatty = await h.run(executor, {
        command: "for i in $(seq 1 15); do echo $i; sleep 0.1; done",
        idleTimeoutMs: 700,
      });
      // Longer than the idle time in all, but never quiet for that long.
      assert.ok(chatty.durationMs > 700, `it ran only ${chatty.durationMs} ms`);
      assert.deepEqual(causes(chatty), [false, false, false]);
      assert.equal(chatty.exitCode, 0);
    },
  },
  {
    name: "kills a command when the caller's signal aborts and says so",
    async body(h) {
      const executor = await h.executor();
      const marker = h.marker();
      const controller = new AbortController();
      const running = h.run(executor, {
        command: `echo begun; ${marker.sleep}`,
        signal: controller.signal,
      });
      await h.waitForSleep(marker);
      controller.abort();
      const result = await running;
      assert.deepEqual(causes(result), [false, false, true]);
      assert.equal(result.stdout.text, "begun\n");
      await h.assertNoneLeft(marker);
    },
  },
  {
    name: "ends a command whose signal aborts while it is being started",
    async body(h) {
      const executor = await h.executor();
      // At once, after the current task, and a little later: before, inside and after the
      // spawn (and, for a sandbox, inside its setup).
      for (const delay of [-1, 0, 1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 40, 60]) {
        const marker = h.marker();
        const controller = new AbortController();
        const running = h.run(executor, { command: marker.sleep, signal: controller.signal });
        if (delay < 0) controller.abort();
        else setTimeout(() => controller.abort(), delay);
        const result = await running.catch((error: unknown) => {
          // Aborted before anything ran: the call rejects as for a signal aborted beforehand.
          assert.ok(error instanceof BashSpawnError, `abort after ${delay} ms: ${error}`);
          return null;
        });
        if (result !== null) {
          assert.deepEqual(causes(result), [false, false, true], `abort after ${delay} ms`);
        }
        await h.assertNoneLeft(marker);
      }
    },
  },
  {
    name: "sends SIGTERM first, so a command can clean up within the kill grace",
    needs: "termGrace",
    async body(h) {
      const executor = await h.executor();
      const marker = h.marker();
      const result = await h.run(executor, {
        command: `trap 'echo cleaned up; exit 3' TERM; ${marker.sleep} & wait`,
        timeoutMs: 300,
      });
      assert.deepEqual(causes(result), [true, false, false]);
      assert.equal(result.stdout.text, "cleaned up\n");
      assert.equal(result.exitCode, 3);
      await h.assertNoneLeft(marker);
    },
  },
  {
    name: "ends a command that ignores SIGTERM",
    async body(h) {
      const executor = await h.executor();
      const marker = h.marker();
      const result = await h.run(executor, {
        command: `trap '' TERM; ${marker.sleep}; echo survived`,
        timeoutMs: 300,
      });
      assert.deepEqual(causes(result), [true, false, false]);
      assert.equal(result.stdout.text, "");
      // With the grace, SIGKILL ended it; without, whatever ended everything at once.
      if (h.capabilities.termGrace) assert.equal(result.signal, "SIGKILL");
      await h.assertNoneLeft(marker);
    },
  },
  {
    name: "keeps the first cause when a second one comes while the command is ending",
    async body(h) {
      const executor = await h.executor();
      const marker = h.marker();
      const controller = new AbortController();
      // The first cause is the idle clock, which starts with the command (the wall clock starts
      // at the call, and on a loaded machine or a slow connection it can run out before the
      // command runs). The command says when that cause's SIGTERM reached it, and the abort
      // comes then, inside the kill grace: the sleep ignores SIGTERM, and the shell answers
      // each one and goes on waiting, until SIGKILL.
      const result = await h.run(executor, {
        command: `trap '' TERM; ${marker.sleep} & trap 'echo term' TERM; while :; do wait; done`,
        idleTimeoutMs: 2000,
        signal: controller.signal,
        onOutput: ({ text }) => {
          if (text.includes("term")) controller.abort();
        },
      });
      assert.deepEqual(causes(result), [false, true, false]);
      // Where the executor has a kill grace, the abort came inside it.
      if (h.capabilities.termGrace) assert.match(result.stdout.text, /^term\n/);
      await h.assertNoneLeft(marker);
    },
  },
];
