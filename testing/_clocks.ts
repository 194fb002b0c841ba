import assert from "node:assert/strict";
import {
  type BashExecRequest,
  type BashExecutor,
  type BashRunResult,
  BashSpawnError,
} from "../seam/mod.ts";
import type { CaseDefinition, Harness } from "./_harness.ts";

/** The three causes, in the order timedOut, idledOut, aborted. */
function causes(result: BashRunResult): boolean[] {
  return [result.timedOut, result.idledOut, result.aborted];
}

/** How many times {@linkcode runPastStart} doubles a clock before the case fails. */
const CLOCK_DOUBLINGS = 5;

/**
 * Runs `request` with its `clock` (the wall or the idle clock) at `ms`, and
 * while the command had not printed `begun` (its first line, printed once
 * it is ready to be ended) when the clock ran out, runs it again with the
 * clock doubled, up to {@linkcode CLOCK_DOUBLINGS} times. On a loaded
 * machine a shell can take longer than the clock to start, and a case about
 * what a clock does to a running command starts from that event, not from
 * the call. Returns the last result and the clock it ran with.
 */
async function runPastStart(
  h: Harness,
  executor: BashExecutor,
  request: BashExecRequest,
  clock: "timeoutMs" | "idleTimeoutMs",
  ms: number,
  begun: string,
): Promise<{ result: BashRunResult; ms: number }> {
  for (let doublings = 0;; doublings++, ms *= 2) {
    const result = await h.run(executor, { ...request, [clock]: ms });
    if (result.stdout.text.startsWith(begun) || doublings === CLOCK_DOUBLINGS) {
      assert.ok(
        result.stdout.text.startsWith(begun),
        `the command never printed ${JSON.stringify(begun)} within a clock of ${ms} ms`,
      );
      return { result, ms };
    }
  }
}

/** The wall clock, the idle clock, the caller's abort, and how a command is ended. */
export const clockCases: readonly CaseDefinition[] = [
  {
    name: "kills a command when the wall clock runs out and says so",
    async body(h) {
      const executor = await h.executor();
      const marker = h.marker();
      const { result, ms } = await runPastStart(
        h,
        executor,
        {
          command: `echo begun; ${marker.sleep}; echo late`,
        },
        "timeoutMs",
        300,
        "begun\n",
      );
      assert.deepEqual(causes(result), [true, false, false]);
      assert.equal(result.timeoutMs, ms);
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
      const { result: quiet } = await runPastStart(
        h,
        executor,
        {
          command: `echo start; ${marker.sleep}`,
        },
        "idleTimeoutMs",
        300,
        "start\n",
      );
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
      const { result } = await runPastStart(
        h,
        executor,
        {
          command: `trap 'echo cleaned up; exit 3' TERM; echo armed; ${marker.sleep} & wait`,
        },
        "timeoutMs",
        300,
        "armed\n",
      );
      assert.deepEqual(causes(result), [true, false, false]);
      assert.equal(result.stdout.text, "armed\ncleaned up\n");
      assert.equal(result.exitCode, 3);
      await h.assertNoneLeft(marker);
    },
  },
  {
    name: "ends a command that ignores SIGTERM",
    async body(h) {
      const executor = await h.executor();
      const marker = h.marker();
      const { result } = await runPastStart(
        h,
        executor,
        {
          command: `trap '' TERM; echo armed; ${marker.sleep}; echo survived`,
        },
        "timeoutMs",
        300,
        "armed\n",
      );
      assert.deepEqual(causes(result), [true, false, false]);
      assert.equal(result.stdout.text, "armed\n");
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
