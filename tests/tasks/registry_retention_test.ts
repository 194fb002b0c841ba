import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { BashConfigError } from "../../seam/errors.ts";
import {
  ExpiredTaskError,
  TaskLimitError,
  TaskRegistry,
  type TaskRegistryOptions,
  UnknownTaskError,
} from "../../tasks/mod.ts";
import { alice, bob, type FakeTask, fakeTask, start, tick, withRegistry } from "./_helpers.ts";

/** Starts `count` tasks for alice that complete at once, and lets the registry see them settle. */
async function finishedTasks(
  registry: TaskRegistry<string>,
  count: number,
): Promise<{ id: string; task: FakeTask }[]> {
  const started = [];
  for (let i = 0; i < count; i++) {
    const { id, task } = start(registry, alice);
    task.finish({ status: "completed", exitCode: 0 });
    started.push({ id, task });
    if (i % 32 === 31) await tick(); // settled, so the running cap does not refuse the next
  }
  await tick();
  return started;
}

describe("TaskRegistry: settled tasks are let go", () => {
  it("keeps the newest seen tasks up to the count, releases the others, and says they expired", async () => {
    const registry = new TaskRegistry<string>({ maxSettledTasksPerOwner: 3 });
    await withRegistry(async () => {
      const tasks = await finishedTasks(registry, 10);
      for (const { id } of tasks) registry.read(id, alice);
      await tick();
      const kept = registry.list(alice).map((snapshot) => snapshot.id);
      assert.deepEqual(kept, tasks.slice(-3).map((t) => t.id));
      assert.deepEqual(tasks.map((t) => t.task.releases), [1, 1, 1, 1, 1, 1, 1, 0, 0, 0]);
      assert.throws(
        () => registry.read(tasks[0]!.id, alice),
        (error: unknown) =>
          error instanceof ExpiredTaskError && error instanceof UnknownTaskError &&
          error.code === "expired-task" && error.taskId === "bash-1" &&
          /no longer kept.*run the command again/.test(error.message) &&
          !/task_/.test(error.message),
      );
      await assert.rejects(registry.wait(tasks[1]!.id, alice), ExpiredTaskError);
      await assert.rejects(registry.kill(tasks[2]!.id, alice), ExpiredTaskError);
      assert.throws(
        () => registry.get("bash-11", alice),
        (error: unknown) =>
          error instanceof UnknownTaskError && !(error instanceof ExpiredTaskError),
        "an id never issued is unknown, not expired",
      );
      assert.throws(() => registry.get("bash-01", alice), (e) => !(e instanceof ExpiredTaskError));
    }, registry);
  });

  it("counts a finished wait, a kill and a taken notice as seen, each per owner", async () => {
    const registry = new TaskRegistry<string>({ maxSettledTasksPerOwner: 1 });
    await withRegistry(async () => {
      const waited = start(registry, alice);
      const waiting = registry.wait(waited.id, alice);
      waited.task.finish({ status: "completed", exitCode: 0 });
      await waiting;
      const killed = start(registry, alice);
      await registry.kill(killed.id, alice);
      await tick();
      assert.deepEqual(registry.list(alice).map((s) => s.id), [killed.id], "the wait's is let go");
      assert.equal(waited.task.releases, 1);
      const noticed = start(registry, alice);
      noticed.task.finish({ status: "completed" });
      const theirs = start(registry, bob);
      theirs.task.finish({ status: "completed" });
      await tick();
      assert.deepEqual(registry.list(alice).map((s) => s.id), [killed.id, noticed.id]);
      assert.equal(registry.takeNotices(alice).length, 1);
      assert.equal(registry.takeNotices(bob).length, 1);
      assert.deepEqual(registry.list(alice).map((s) => s.id), [noticed.id]);
      assert.deepEqual(registry.list(bob).map((s) => s.id), [theirs.id], "another owner's count");
      await tick();
      assert.equal(killed.task.releases, 1);
    }, registry);
  });

  it("never lets a task go before its final state was seen, however many come after", async () => {
    const registry = new TaskRegistry<string>({
      maxSettledTasksPerOwner: 1,
      settledTaskTtlMs: 1,
    });
    await withRegistry(async () => {
      const [unseen] = await finishedTasks(registry, 1);
      const peeked = start(registry, alice);
      peeked.task.chunks.push("partial");
      assert.equal(registry.read(peeked.id, alice).output, "partial", "a read while running");
      peeked.task.finish({ status: "completed" });
      for (const { id } of await finishedTasks(registry, 200)) registry.read(id, alice);
      await tick(5);
      assert.deepEqual(registry.list(alice).map((s) => s.id), [unseen!.id, peeked.id]);
      assert.equal(unseen!.task.releases, 0);
      const notices = registry.takeNotices(alice).map((notice) => notice.snapshot.id);
      assert.deepEqual(notices, [unseen!.id, peeked.id]);
      await tick(5);
      assert.deepEqual(registry.list(alice), [], "let go once seen and past the time limit");
      assert.equal(unseen!.task.releases, 1);
      assert.throws(() => registry.read(unseen!.id, alice), ExpiredTaskError);
    }, registry);
  });

  it("lets seen tasks go after the time limit", async () => {
    const registry = new TaskRegistry<string>({ settledTaskTtlMs: 30 });
    await withRegistry(async () => {
      const [old] = await finishedTasks(registry, 1);
      registry.read(old!.id, alice);
      await tick(40);
      const [fresh] = await finishedTasks(registry, 1);
      registry.read(fresh!.id, alice);
      assert.deepEqual(registry.list(alice).map((s) => s.id), [fresh!.id]);
      assert.equal(old!.task.releases, 1);
      assert.equal(fresh!.task.releases, 0);
    }, registry);
  });

  it("releases tasks dropped by disposal, and a dropped task that settles later once it settles", async () => {
    const registry = new TaskRegistry<string>();
    const [settled] = await finishedTasks(registry, 1);
    const stuck = start(registry, alice, fakeTask(() => Promise.reject(new Error("no signal"))));
    await assert.rejects(registry.disposeOwner(alice), AggregateError);
    await tick();
    assert.equal(settled!.task.releases, 1);
    assert.equal(stuck.task.releases, 0, "never released while it may still run");
    stuck.task.finish({ status: "killed", signal: "SIGKILL" });
    await tick();
    assert.equal(stuck.task.releases, 1);
    await registry[Symbol.asyncDispose]();
  });

  it("reports a failing release to onListenerError and keeps going", async () => {
    const reported: string[] = [];
    const registry = new TaskRegistry<string>({
      maxSettledTasksPerOwner: 1,
      onListenerError: (error, snapshot) => reported.push(`${snapshot.id}: ${String(error)}`),
    });
    await withRegistry(async () => {
      const task = fakeTask();
      task.hooks.release = () => Promise.reject(new Error("cannot delete"));
      const first = start(registry, alice, task);
      first.task.finish({ status: "completed" });
      for (const { id } of [first, ...await finishedTasks(registry, 1)]) registry.read(id, alice);
      await tick();
      assert.deepEqual(reported, ["bash-1: Error: cannot delete"]);
      assert.equal(registry.list(alice).length, 1);
    }, registry);
  });
});

describe("TaskRegistry: running tasks are bounded", () => {
  it("refuses a task past the per-owner cap, in words for any caller, until one settles", async () => {
    const registry = new TaskRegistry<string>({ maxRunningTasksPerOwner: 2 });
    await withRegistry(async () => {
      const first = start(registry, alice);
      start(registry, alice);
      const refused = fakeTask();
      assert.throws(
        () => start(registry, alice, refused),
        (error: unknown) =>
          error instanceof TaskLimitError && error.limit === 2 && error.code === "task-limit" &&
          /already has 2 running tasks.*stop one/.test(error.message) &&
          !/task_/.test(error.message),
      );
      assert.throws(() => registry.checkCapacity(alice), TaskLimitError);
      assert.equal(registry.list(alice).length, 2, "nothing registered");
      registry.checkCapacity(bob);
      start(registry, bob);
      await registry.kill(first.id, alice);
      registry.checkCapacity(alice);
      assert.equal(start(registry, alice).id, "bash-4", "the refusal used no id");
    }, registry);
  });

  it("stops a task at the maximum lifetime, with a kill reason and a notice", async () => {
    const registry = new TaskRegistry<string>({ maxTaskLifetimeMs: 20 });
    await withRegistry(async () => {
      const { id, task } = start(registry, alice);
      const quick = start(registry, alice);
      quick.task.finish({ status: "completed", exitCode: 0 });
      const settled = await registry.wait(id, alice, { timeoutMs: 5_000 });
      assert.equal(settled.status, "killed");
      assert.equal(settled.killReason, "ran longer than the maximum lifetime of 20 ms");
      assert.deepEqual(task.cancels, ["ran longer than the maximum lifetime of 20 ms"]);
      assert.deepEqual(quick.task.cancels, [], "a task that ended in time is not cancelled");
    }, registry);
  });

  it("validates the limits with BashConfigError", () => {
    const bad: [TaskRegistryOptions, RegExp][] = [
      [{ maxSettledTasksPerOwner: 0 }, /"maxSettledTasksPerOwner" must be a whole number >= 1/],
      [{ maxSettledTasksPerOwner: 1.5 }, /"maxSettledTasksPerOwner"/],
      [{ maxRunningTasksPerOwner: 0 }, /"maxRunningTasksPerOwner" must be a whole number >= 1/],
      [{ settledTaskTtlMs: -1 }, /"settledTaskTtlMs" must be a positive number/],
      [{ settledTaskTtlMs: Infinity }, /"settledTaskTtlMs"/],
      [{ maxTaskLifetimeMs: 2 ** 31 }, /"maxTaskLifetimeMs" must be .* at most 2147483647/],
      [{ maxTaskLifetimeMs: "1s" as unknown as number }, /"maxTaskLifetimeMs".*got "1s"/],
    ];
    for (const [options, message] of bad) {
      assert.throws(
        () => new TaskRegistry(options),
        (error: unknown) => error instanceof BashConfigError && message.test(error.message),
        JSON.stringify(options),
      );
    }
  });
});
