// A plan's verdict (LaunchPlan.verdict): a check of the runner still under
// way when the launch is spawned. The executor tells it whether the launch
// said its command started, awaits it before the result (or before start()
// resolves), and when it rejects, kills the command, awaits its end and
// rejects the call with its error, never calling the plan's afterSettle.
import { describe } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { LocalBashExecutor } from "../../local/mod.ts";
import { withPlan } from "./_plan.ts";
import { it, LEAK_MARK, markedProcesses } from "../local/_executor.ts";

/** An executor whose every plan carries `verdict`, its launch announcing its start when `announce`. */
class Judged extends LocalBashExecutor {
  /** What each verdict was told of its launch's start, in order. */
  readonly told: (boolean | undefined)[];
  readonly #settles: { count: number };

  constructor(verdict: () => Promise<void>, announce = false) {
    const told: (boolean | undefined)[] = [];
    const settles = { count: 0 };
    super({
      ...withPlan((_spec, launch) => {
        const command = launch.args.at(-1) ?? "";
        return Promise.resolve({
          launch: announce
            ? { ...launch, args: [...launch.args.slice(0, -1), `printf '\\006'; ${command}`] }
            : launch,
          ...(announce ? { announcesStart: { retry: () => false } } : {}),
          verdict: (started) => {
            told.push(started);
            return verdict();
          },
          afterSettle: () => void settles.count++,
        });
      }),
    });
    this.told = told;
    this.#settles = settles;
  }

  /** How many times a plan's afterSettle was called. */
  get afterSettles(): number {
    return this.#settles.count;
  }
}

/** The live processes of the running test (see `it`). */
const testProcesses = () => markedProcesses(process.env[LEAK_MARK] ?? "");

/** Resolves once `check` holds (polled every 20 ms), or rejects after 30 s. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (const end = Date.now() + 30_000; !check();) {
    if (Date.now() > end) throw new Error(`${what} did not happen within 30 s`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

describe("a plan's verdict", () => {
  it("is awaited before the result, once the command is spawned", async () => {
    const verdict = Promise.withResolvers<void>();
    await using executor = new Judged(() => verdict.promise);
    let settled = false;
    const run = executor.run({ command: "echo ran" }).finally(() => (settled = true));
    await until(() => executor.told.length === 1 && testProcesses().length === 0, "the command");
    // From the command's end: a result that did not wait would come within this.
    await new Promise((done) => setTimeout(done, 200));
    assert.equal(settled, false, "the result came before the verdict");
    verdict.resolve();
    const result = await run;
    assert.deepEqual([result.exitCode, result.stdout.text], [0, "ran\n"]);
    await until(() => executor.afterSettles === 1, "afterSettle");
  });

  it("kills the command, awaits its end and rejects with its error when it rejects", async () => {
    const verdict = Promise.withResolvers<void>();
    await using executor = new Judged(() => verdict.promise);
    const run = executor.run({ command: "sleep 30 & wait" });
    await until(() => testProcesses().length >= 2, "the command's processes");
    verdict.reject(new Error("the runner is broken"));
    await assert.rejects(run, /the runner is broken/);
    assert.deepEqual(testProcesses(), [], "the command was left running");
    // The next call's plan would run afterSettle by now (see the first test).
    const next = new Judged(() => Promise.resolve());
    await next.run({ command: "true" });
    await until(() => next.afterSettles === 1, "the next call's afterSettle");
    await next[Symbol.asyncDispose]();
    assert.equal(executor.afterSettles, 0);
  });

  it("is told whether the launch said its command started", async () => {
    for (const announce of [true, false]) {
      await using executor = new Judged(() => Promise.resolve(), announce);
      const result = await executor.run({ command: "echo ran" });
      assert.equal(result.stdout.text, "ran\n");
      assert.deepEqual(executor.told, [announce ? true : undefined]);
    }
  });

  it("holds start() back, which rejects with its error when it rejects", async () => {
    const verdict = Promise.withResolvers<void>();
    await using executor = new Judged(() => verdict.promise);
    let started = false;
    const start = executor.start({ command: "sleep 30" }).finally(() => (started = true));
    await until(() => testProcesses().length >= 1, "the command");
    assert.equal(started, false);
    verdict.reject(new Error("the runner is broken"));
    await assert.rejects(start, /the runner is broken/);
    assert.deepEqual(testProcesses(), [], "the command was left running");
  });
});
