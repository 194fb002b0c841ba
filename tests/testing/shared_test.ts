// The conformance suite's shared executor: the cases that take the suite's
// limits run on one executor, a case that needs its own gets it, a failed
// case leaves no executor behind for the next, and what a case left running
// is killed when it ends.
import { describe, it } from "node:test";
import process from "node:process";
import assert from "node:assert/strict";
import { LocalBashExecutor } from "../../local/mod.ts";
import type { BashExecutor } from "../../seam/mod.ts";
import { describeBashExecutorConformance } from "../../testing/mod.ts";
import { conformanceCases } from "../../testing/cases.ts";
import { Harness, SharedExecutor, withHarness } from "../../testing/_harness.ts";
import { killHere, processesHere } from "../../testing/_processes.ts";
import type { ConformanceExecutorOptions } from "../../testing/executor_options.ts";

/** A factory of local executors that counts those it made and those disposed (once or more). */
function counting(): {
  factory: (options: ConformanceExecutorOptions) => BashExecutor;
  made: () => number;
  disposed: () => number;
} {
  let made = 0;
  const disposed = new Set<BashExecutor>();
  return {
    factory: (options) => {
      made++;
      const executor = new LocalBashExecutor(options);
      const dispose = executor[Symbol.asyncDispose].bind(executor);
      executor[Symbol.asyncDispose] = async () => {
        disposed.add(executor);
        await dispose();
      };
      return executor;
    },
    made: () => made,
    disposed: () => disposed.size,
  };
}

const CAPABILITIES = {
  termGrace: true,
  drainGrace: true,
  countsStrays: true,
  reportsShellSignal: true,
};

/** A harness over `shared`, with this machine's census. */
const harnessOver = (
  shared: SharedExecutor,
  factory: (o: ConformanceExecutorOptions) => BashExecutor,
) => new Harness(factory, CAPABILITIES, processesHere, killHere, shared);

describe("the conformance suite's shared executor", () => {
  it("runs the cases that take the suite's limits on one executor, and the others on their own", async () => {
    const count = counting();
    const shared = new SharedExecutor(count.factory);
    const cases = conformanceCases(count.factory, {
      select: (test) => test.group === "foreground" || test.group === "disposal",
    }, shared);
    for (const test of cases.filter((test) => test.group === "foreground")) await test.run();
    assert.deepEqual(
      [count.made(), count.disposed()],
      [1, 0],
      "one executor for the foreground cases",
    );
    // The disposal cases dispose theirs: each gets one of its own.
    for (const test of cases.filter((test) => test.group === "disposal")) await test.run();
    assert.deepEqual([count.made(), count.disposed()], [3, 2]);
    await shared.close((executor) => executor[Symbol.asyncDispose]());
    assert.deepEqual([count.made(), count.disposed()], [3, 3]);
  });

  it("disposes the shared executor after a case that failed, and the next case gets a new one", async () => {
    const count = counting();
    const shared = new SharedExecutor(count.factory);
    const marker = `313.${process.pid}${Date.now()}`;
    await assert.rejects(
      withHarness(harnessOver(shared, count.factory), async (h) => {
        const executor = await h.executor();
        // A foreground command still running when the case fails.
        void h.run(executor, { command: `sleep ${marker}` }).catch(() => {});
        await h.waitForSleep({ text: marker, sleep: "" });
        throw new Error("the case failed");
      }, shared),
      /the case failed/,
    );
    assert.deepEqual([count.made(), count.disposed()], [1, 1]);
    assert.deepEqual(await processesHere(marker), [], "its command went with the executor");
    await withHarness(harnessOver(shared, count.factory), async (h) => {
      await h.run(await h.executor(), { command: "true" });
    }, shared);
    assert.deepEqual([count.made(), count.disposed()], [2, 1]);
    await shared.close((executor) => executor[Symbol.asyncDispose]());
  });

  it("kills what a case left running in the background, and keeps the executor", async () => {
    const count = counting();
    const shared = new SharedExecutor(count.factory);
    let left: { status: string } | undefined;
    await withHarness(harnessOver(shared, count.factory), async (h) => {
      const marker = h.marker();
      left = await h.start(await h.executor(), { command: marker.sleep });
      await h.waitForSleep(marker);
    }, shared);
    assert.equal(left?.status, "killed");
    assert.deepEqual([count.made(), count.disposed()], [1, 0]);
    await shared.close((executor) => executor[Symbol.asyncDispose]());
  });
});

// Registered with node:test: the describe's cases share one executor, disposed after them.
const registered = counting();
describeBashExecutorConformance("a counted local executor", registered.factory, {
  select: (test) => test.group === "input",
});

describe("after the registered suite", () => {
  it("made one executor for its shared cases and one for the case of its own, and disposed both", () => {
    assert.deepEqual([registered.made(), registered.disposed()], [2, 2]);
  });
});
