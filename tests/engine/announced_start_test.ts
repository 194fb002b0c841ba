// A plan that announces its command's start (LaunchPlan.announcesStart): the
// executor takes the start byte out of stdout, and a launch that ended
// before it is planned and spawned again when the plan's retry says so, up
// to three launches in all, or rejects with the retry's error when it
// rejects. Its runner here is a bash script that fails its "setup" for the
// first few launches.
import { describe } from "node:test";
import assert from "node:assert/strict";
import { LocalBashExecutor } from "../../local/mod.ts";
import { withPlan } from "./_plan.ts";
import { it } from "../local/_executor.ts";

/** The retry of a runner that failed its setup: its own words say so. */
const runnerFailed = (stderr: string) => stderr.startsWith("runner: ");

/**
 * A runner whose first `failures` launches fail before the command starts,
 * each planned again when `retry` says so.
 */
class FlakyRunner extends LocalBashExecutor {
  readonly #count: { plans: number };
  /** What each plan's describe was told of its launch's start, in order. */
  readonly started: (boolean | undefined)[] = [];

  constructor(
    failures: number,
    retry: (stderr: string) => boolean | Promise<boolean> = runnerFailed,
  ) {
    const count = { plans: 0 };
    const started: (boolean | undefined)[] = [];
    super({
      ...withPlan((_spec, launch) => {
        const plan = ++count.plans;
        const command = launch.args.at(-1) ?? "";
        const script = plan <= failures
          ? `echo "runner: mount point ${plan} gone" >&2; exit 1`
          : `printf '\\006'; ${command}`;
        return Promise.resolve({
          launch: { ...launch, args: [...launch.args.slice(0, -1), script] },
          announcesStart: { retry },
          describe: (outcome) => {
            started.push(outcome.started);
            return { mode: "danger-full-access", backend: "none", denied: false };
          },
        });
      }),
    });
    this.#count = count;
    this.started = started;
  }

  /** The launches planned so far. */
  get plans(): number {
    return this.#count.plans;
  }
}

describe("a plan that announces its command's start", () => {
  it("takes the start byte out of stdout", async () => {
    await using executor = new FlakyRunner(0);
    const result = await executor.run({ command: "printf x; echo y >&2" });
    assert.deepEqual([result.stdout.text, result.stderr.text, result.exitCode], ["x", "y\n", 0]);
    assert.equal(executor.plans, 1);
  });

  it("plans and launches again after a launch that ended before its command started", async () => {
    await using executor = new FlakyRunner(2);
    const result = await executor.run({ command: "cat", stdin: "handed over" });
    // Neither the runner's lines nor the byte reach the result; the stdin does, once.
    assert.deepEqual([result.stdout.text, result.stderr.text, result.exitCode], [
      "handed over",
      "",
      0,
    ]);
    assert.equal(executor.plans, 3);
  });

  it("gives up after three launches, with the last runner's failure as the result", async () => {
    await using executor = new FlakyRunner(5);
    const result = await executor.run({ command: "echo never" });
    assert.deepEqual([result.stdout.text, result.stderr.text, result.exitCode], [
      "",
      "runner: mount point 3 gone\n",
      1,
    ]);
    assert.equal(executor.plans, 3);
  });

  it("launches once when the plan's retry says no", async () => {
    await using executor = new FlakyRunner(1, () => false);
    const result = await executor.run({ command: "echo never" });
    assert.deepEqual([result.stderr.text, result.exitCode], ["runner: mount point 1 gone\n", 1]);
    assert.equal(executor.plans, 1);
  });

  it("follows a retry that awaits", async () => {
    const awaiting = (again: boolean) => async () => {
      await new Promise((done) => setTimeout(done, 50));
      return again;
    };
    await using again = new FlakyRunner(1, awaiting(true));
    const result = await again.run({ command: "echo once" });
    assert.deepEqual([result.stdout.text, result.stderr.text, result.exitCode], ["once\n", "", 0]);
    assert.equal(again.plans, 2);
    await using once = new FlakyRunner(1, awaiting(false));
    const failed = await once.run({ command: "echo never" });
    assert.deepEqual([failed.stderr.text, failed.exitCode], ["runner: mount point 1 gone\n", 1]);
    assert.equal(once.plans, 1);
  });

  it("rejects with the retry's error, the launch's plan settled, when the retry rejects", async () => {
    await using executor = new FlakyRunner(2, () => Promise.reject(new Error("runner refused")));
    await assert.rejects(executor.run({ command: "echo never" }), /^Error: runner refused$/);
    await assert.rejects(executor.start({ command: "echo never" }), /^Error: runner refused$/);
    // Neither call was planned again; each plan was told its command never started.
    assert.equal(executor.plans, 2);
    assert.deepEqual(executor.started, [false, false]);
  });

  it("hands its input to a launch planned again that does not announce its start", async () => {
    const told: (boolean | undefined)[] = [];
    let plans = 0;
    await using executor = new LocalBashExecutor(withPlan((_spec, launch) => {
      const command = launch.args.at(-1) ?? "";
      const first = ++plans === 1;
      return Promise.resolve({
        launch: {
          ...launch,
          args: [
            ...launch.args.slice(0, -1),
            first ? "echo 'runner: gone' >&2; exit 1" : `read -r line; echo "$line"; ${command}`,
          ],
          ...(first ? {} : { input: new TextEncoder().encode("the launch's input\n") }),
        },
        ...(first ? { announcesStart: { retry: runnerFailed } } : {}),
        describe: (outcome) => {
          told.push(outcome.started);
          return { mode: "danger-full-access", backend: "none", denied: false };
        },
      });
    }));
    const result = await executor.run({ command: "cat", stdin: "the command's\n" });
    assert.deepEqual([result.stdout.text, result.stderr.text, result.exitCode], [
      "the launch's input\nthe command's\n",
      "",
      0,
    ]);
    // The second launch said nothing of its start.
    assert.deepEqual(told, [false, undefined]);
  });

  it("tells the plan whether the command started, whatever the command printed", async () => {
    await using executor = new FlakyRunner(1);
    const result = await executor.run({ command: 'echo "runner: mount point 9 gone" >&2; exit 1' });
    assert.equal(result.exitCode, 1);
    // The first launch ended before its command; the second said it started.
    assert.deepEqual(executor.started, [false, true]);
  });

  it("starts a background command the same way", async () => {
    await using executor = new FlakyRunner(1);
    const process = await executor.start({ command: "echo started" });
    await process.done;
    const read = process.readOutput();
    assert.deepEqual([read.stdout.text, read.stderr.text, read.exitCode], ["started\n", "", 0]);
    assert.equal(executor.plans, 2);
  });
});
