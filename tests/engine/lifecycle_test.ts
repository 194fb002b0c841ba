// ExecutorLifecycle (engine/_lifecycle.ts): the bookkeeping the local engine and the SSH
// executor share, from the first launch to disposal.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { ExecutorLifecycle, type RunningCommand } from "../../engine/mod.ts";
import { type BashExecSpec, BashSpawnError } from "../../seam/mod.ts";
import { assertNoneLeft, marker } from "../local/_helpers.ts";
import { command } from "./_running.ts";

/** A moment in which nothing should happen. */
const quiet = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 100));

const spec = (signal?: AbortSignal): BashExecSpec => ({
  command: "true",
  workdir: "/",
  timeoutMs: 1000,
  stdoutMaxBytes: 1000,
  sandboxPolicy: null,
  ...(signal === undefined ? {} : { signal }),
});

describe("ExecutorLifecycle", () => {
  it("disposes in order: the launches under way settle, their commands are killed and end, then close", async () => {
    const lifecycle = new ExecutorLifecycle(() => Promise.resolve());
    const token = marker();
    const steps: string[] = [];
    let go!: () => void;
    let running: RunningCommand | undefined;
    // A launch under way when disposal begins, which spawns its command only after that: a
    // command that ignores SIGTERM, so it ends only at the SIGKILL a second later.
    lifecycle.launch(
      new Promise<void>((resolve) => (go = resolve)).then(async () => {
        running = await command(`trap '' TERM; sleep ${token}`);
        lifecycle.track(running);
        steps.push("launched");
      }),
    );
    const disposing = lifecycle.dispose({
      stop: () => void steps.push("stop"),
      close: () => {
        steps.push(`close (settled: ${running?.isSettled}, by ${running?.cause})`);
        return Promise.resolve();
      },
    });
    assert.deepEqual(steps, ["stop"]);
    assert.equal(lifecycle.disposed, true);
    assert.throws(() => lifecycle.checkOpen(), /The executor was disposed/);
    await quiet();
    assert.deepEqual(steps, ["stop"], "disposal went on before the launch settled");
    go();
    await disposing;
    assert.deepEqual(steps, ["stop", "launched", "close (settled: true, by dispose)"]);
    await assertNoneLeft(token);
  });

  it("closes only once what its stop returned is done", async () => {
    const lifecycle = new ExecutorLifecycle(() => Promise.resolve());
    const steps: string[] = [];
    let finishStop!: () => void;
    const disposing = lifecycle.dispose({
      stop: async () => {
        await new Promise<void>((resolve) => (finishStop = resolve));
        steps.push("stopped");
      },
      close: () => Promise.resolve(void steps.push("close")),
    });
    await quiet();
    assert.deepEqual(steps, [], "disposal closed before the stop ended");
    finishStop();
    await disposing;
    assert.deepEqual(steps, ["stopped", "close"]);
  });

  it("refuses a spawn once disposed or once the call's signal aborted", async () => {
    const lifecycle = new ExecutorLifecycle(() => Promise.resolve());
    lifecycle.checkCanSpawn(spec(new AbortController().signal));
    assert.throws(
      () => lifecycle.checkCanSpawn(spec(AbortSignal.abort())),
      (error: Error) =>
        error instanceof BashSpawnError && /aborted before the command started/.test(error.message),
    );
    await lifecycle.dispose({ close: () => Promise.resolve() });
    assert.throws(
      () => lifecycle.checkCanSpawn(spec()),
      (error: Error) =>
        error instanceof BashSpawnError && /The executor was disposed/.test(error.message),
    );
  });

  it("removes its signal hooks when it is disposed", async () => {
    const lifecycle = new ExecutorLifecycle(() => Promise.resolve());
    const before = process.listenerCount("SIGHUP");
    lifecycle.killOnSignals(["SIGHUP"]);
    assert.equal(process.listenerCount("SIGHUP"), before + 1);
    await lifecycle.dispose({ close: () => Promise.resolve() });
    assert.equal(process.listenerCount("SIGHUP"), before);
  });
});
