import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { BashConfigError, BashError, BashSpawnError } from "../../seam/errors.ts";
import {
  DisposedTaskError,
  ExpiredTaskError,
  type TaskHooks,
  type TaskOwner,
  taskOwner,
  TaskOwnershipError,
  TaskRegistry,
  type TaskRegistryOptions,
  type TaskSettlement,
  type TaskSnapshot,
  UnknownTaskError,
} from "../../tasks/mod.ts";
import { alice, bob, deferred, fakeTask, start, tick, withRegistry } from "./_helpers.ts";

describe("TaskRegistry: registration", () => {
  it("numbers ids per kind, across owners, and never reuses them after a drop", async () => {
    await withRegistry(async (registry) => {
      assert.equal(start(registry, alice).id, "bash-1");
      assert.equal(start(registry, bob).id, "bash-2");
      assert.equal(start(registry, alice, fakeTask(), "agent").id, "agent-1");
      assert.equal(start(registry, alice).id, "bash-3");
      await registry.disposeOwner(alice);
      assert.equal(start(registry, alice).id, "bash-4");
      assert.equal(start(registry, alice, fakeTask(), "agent").id, "agent-2");
    });
  });

  it("returns a running snapshot with the kind, label and start time", async () => {
    await withRegistry((registry) => {
      const before = Date.now();
      const { snapshot } = start(registry, alice);
      assert.deepEqual(
        { ...snapshot, startedAt: 0 },
        {
          id: "bash-1",
          kind: "bash",
          label: "label of bash",
          status: "running",
          exitCode: null,
          signal: null,
          startedAt: 0,
        },
      );
      assert.ok(snapshot.startedAt >= before && snapshot.startedAt <= Date.now());
      assert.equal(snapshot.endedAt, undefined);
    });
  });

  it("rejects bad kinds, labels, owners and hooks with BashConfigError and registers nothing", async () => {
    await withRegistry((registry) => {
      const hooks = fakeTask().hooks;
      for (const kind of ["", "Bash", "1bash", "ba sh", "bash!", 7]) {
        assert.throws(
          () => registry.register({ kind: kind as string, label: "x", owner: alice, hooks }),
          (error: unknown) =>
            error instanceof BashConfigError && /"kind" must match/.test(error.message),
          `kind ${String(kind)}`,
        );
      }
      assert.throws(
        () =>
          registry.register({ kind: "bash", label: 3 as unknown as string, owner: alice, hooks }),
        /"label" must be a string; got 3;/,
      );
      assert.throws(
        () => registry.register({ kind: "bash", label: "x", owner: "" as TaskOwner, hooks }),
        BashConfigError,
      );
      const broken = [
        { cancel: hooks.cancel },
        { done: hooks.done },
        { cancel: hooks.cancel, done: hooks.done, readOutput: "nope" },
        null,
      ];
      for (const bad of broken) {
        assert.throws(
          () =>
            registry.register({
              kind: "bash",
              label: "x",
              owner: alice,
              hooks: bad as unknown as TaskHooks<string>,
            }),
          /"hooks" must have a "cancel" function/,
        );
      }
      assert.deepEqual(registry.list(alice), []);
      assert.equal(start(registry, alice).id, "bash-1", "failed registrations use no id");
    });
  });

  it("accepts kinds with digits, dashes and underscores", async () => {
    await withRegistry((registry) => {
      assert.equal(start(registry, alice, fakeTask(), "a1_b-c").id, "a1_b-c-1");
    });
  });

  it("taskOwner brands non-empty tokens and rejects empty ones", () => {
    assert.equal(taskOwner("x"), "x");
    assert.throws(() => taskOwner(""), BashConfigError);
    assert.throws(() => taskOwner(undefined as unknown as string), /"token" must be a non-empty/);
  });
});

describe("TaskRegistry: fencing", () => {
  it("throws UnknownTaskError for an id never issued, on every call", async () => {
    await withRegistry(async (registry) => {
      start(registry, alice);
      assert.throws(() => registry.get("bash-9", alice), UnknownTaskError);
      assert.throws(() => registry.read("bash-9", alice), UnknownTaskError);
      await assert.rejects(registry.kill("bash-9", alice), UnknownTaskError);
      await assert.rejects(registry.wait("bash-9", alice), UnknownTaskError);
      assert.throws(
        () => registry.get("bash-9", alice),
        (error: unknown) => error instanceof UnknownTaskError && error.taskId === "bash-9",
      );
    });
  });

  it("throws TaskOwnershipError for another owner's id and leaves the task alone", async () => {
    await withRegistry(async (registry) => {
      const { id, task } = start(registry, alice);
      task.chunks.push("secret");
      assert.throws(() => registry.get(id, bob), TaskOwnershipError);
      assert.throws(() => registry.read(id, bob), TaskOwnershipError);
      await assert.rejects(registry.kill(id, bob), TaskOwnershipError);
      await assert.rejects(registry.wait(id, bob, { timeoutMs: 1 }), TaskOwnershipError);
      assert.throws(
        () => registry.get(id, bob),
        (error: unknown) => error instanceof TaskOwnershipError && !/alice/.test(error.message),
        "the message does not name the owner",
      );
      assert.deepEqual(task.cancels, [], "bob's kill did not cancel");
      assert.equal(registry.get(id, alice).status, "running");
      assert.equal(registry.read(id, alice).output, "secret", "bob's read consumed nothing");
    });
  });

  it("lists only the owner's tasks, in registration order", async () => {
    await withRegistry((registry) => {
      start(registry, alice);
      start(registry, bob);
      start(registry, alice, fakeTask(), "agent");
      assert.deepEqual(registry.list(alice).map((s) => s.id), ["bash-1", "agent-1"]);
      assert.deepEqual(registry.list(bob).map((s) => s.id), ["bash-2"]);
      assert.deepEqual(registry.list(taskOwner("carol")), []);
    });
  });
});

describe("TaskRegistry: read", () => {
  it("passes consuming output reads through, and undefined without readOutput", async () => {
    await withRegistry((registry) => {
      const { id, task } = start(registry, alice);
      task.chunks.push("a", "b");
      assert.equal(registry.read(id, alice).output, "a");
      assert.equal(registry.read(id, alice).output, "b");
      const bare = fakeTask();
      delete bare.hooks.readOutput;
      const other = start(registry, alice, bare);
      assert.equal(registry.read(other.id, alice).output, undefined);
      assert.equal(registry.read(other.id, alice).snapshot.status, "running");
    });
  });
});

describe("TaskRegistry: settlement", () => {
  it("records the settlement reported by done", async () => {
    await withRegistry(async (registry) => {
      const { id, task } = start(registry, alice);
      task.finish({ status: "completed", exitCode: 3 });
      const snapshot = await registry.wait(id, alice);
      assert.equal(snapshot.status, "completed");
      assert.equal(snapshot.exitCode, 3);
      assert.equal(snapshot.signal, null);
      assert.ok(snapshot.endedAt !== undefined && snapshot.endedAt >= snapshot.startedAt);
    });
  });

  it("settles a task whose done rejects as failed with the error message", async () => {
    await withRegistry(async (registry) => {
      const first = start(registry, alice);
      const second = start(registry, alice);
      first.task.fail(new Error("pipe broke"));
      second.task.fail("plain string");
      const a = await registry.wait(first.id, alice);
      const b = await registry.wait(second.id, alice);
      assert.equal(a.status, "failed");
      assert.equal(a.error, "pipe broke");
      assert.equal(b.error, "plain string");
    });
  });

  it("settles a task whose done resolves with no final status as failed", async () => {
    await withRegistry(async (registry) => {
      const { id, task } = start(registry, alice);
      task.finish({ status: "running" } as unknown as TaskSettlement);
      const snapshot = await registry.wait(id, alice);
      assert.equal(snapshot.status, "failed");
      assert.match(snapshot.error ?? "", /without a final status \(got "running"\)/);
    });
  });

  it("shows stopping while cancel is in flight, shares the kill, and keeps the first reason", async () => {
    await withRegistry(async (registry) => {
      const gate = deferred();
      const { id, task } = start(registry, alice, fakeTask(() => gate.promise));
      const first = registry.kill(id, alice, "first reason");
      assert.equal(
        registry.get(id, alice).status,
        "stopping",
        "stopping as soon as kill is called",
      );
      const second = registry.kill(id, alice, "second reason");
      let firstResult: string | undefined;
      void first.then((result) => (firstResult = result));
      await tick();
      assert.equal(firstResult, undefined, "kill waits for cancel");
      assert.deepEqual(task.cancels, ["first reason"], "cancel called once");
      const snapshot = registry.get(id, alice);
      assert.equal(snapshot.status, "stopping");
      assert.equal(snapshot.killReason, "first reason");
      gate.resolve();
      assert.equal(await first, "requested");
      assert.equal(await second, "requested");
      assert.equal(registry.get(id, alice).status, "stopping", "until done settles");
      task.finish({ status: "killed", signal: "SIGKILL" });
      const settled = await registry.wait(id, alice);
      assert.equal(settled.status, "killed");
      assert.equal(settled.signal, "SIGKILL");
      assert.equal(settled.killReason, "first reason");
    });
  });

  it("first settlement wins: a completion that beats the kill stays completed", async () => {
    await withRegistry(async (registry) => {
      const gate = deferred();
      const { id, task } = start(registry, alice, fakeTask(() => gate.promise));
      const kill = registry.kill(id, alice, "too slow");
      task.finish({ status: "completed", exitCode: 0 });
      await tick();
      gate.reject(new Error("no such process"));
      assert.equal(await kill, "requested", "a cancel failure after settlement is moot");
      const snapshot = registry.get(id, alice);
      assert.equal(snapshot.status, "completed");
      assert.equal(snapshot.exitCode, 0);
      assert.equal(snapshot.killReason, "too slow");
      assert.equal(await registry.kill(id, alice), "already-finished");
      assert.deepEqual(task.cancels, ["too slow"]);
    });
  });

  it("does not call cancel when the task settled before the kill request ran", async () => {
    await withRegistry(async (registry) => {
      const { id, task } = start(registry, alice);
      task.finish({ status: "completed", exitCode: 0 });
      // The settlement is queued but not yet recorded: kill sees a running task.
      const kill = registry.kill(id, alice);
      assert.equal(await kill, "requested");
      assert.deepEqual(task.cancels, []);
      assert.equal(registry.get(id, alice).status, "completed");
    });
  });

  it("puts the task back to running when cancel rejects, and rejects the kill", async () => {
    await withRegistry(async (registry) => {
      const { id, task } = start(
        registry,
        alice,
        fakeTask(() => Promise.reject(new Error("cannot signal"))),
      );
      await assert.rejects(registry.kill(id, alice, "stop"), /cannot signal/);
      const snapshot = registry.get(id, alice);
      assert.equal(snapshot.status, "running");
      assert.equal(snapshot.killReason, undefined);
      task.finish({ status: "completed", exitCode: 0 });
      await tick();
      assert.deepEqual(
        registry.takeNotices(alice).map((n) => n.snapshot.id),
        [id],
        "a failed kill is not the owner seeing the end",
      );
    });
  });

  it("rejects a non-string kill reason with BashConfigError", async () => {
    await withRegistry(async (registry) => {
      const { id, task } = start(registry, alice);
      await assert.rejects(registry.kill(id, alice, 5 as unknown as string), BashConfigError);
      assert.deepEqual(task.cancels, []);
    });
  });
});

describe("TaskRegistry: wait", () => {
  it("returns the current snapshot when the timeout passes first", async () => {
    await withRegistry(async (registry) => {
      const { id, task } = start(registry, alice);
      const snapshot = await registry.wait(id, alice, { timeoutMs: 20 });
      assert.equal(snapshot.status, "running");
      assert.equal(snapshot.endedAt, undefined);
      task.finish({ status: "completed", exitCode: 0 });
      await tick();
      assert.equal(registry.takeNotices(alice).length, 1, "a timed-out wait saw nothing final");
    });
  });

  it("returns the settled snapshot when the task settles before the timeout", async () => {
    await withRegistry(async (registry) => {
      const { id, task } = start(registry, alice);
      setTimeout(() => task.finish({ status: "completed", exitCode: 0 }), 5);
      const snapshot = await registry.wait(id, alice, { timeoutMs: 5_000 });
      assert.equal(snapshot.status, "completed");
    });
  });

  it("resolves every concurrent wait, and a wait on a settled task at once", async () => {
    await withRegistry(async (registry) => {
      const { id, task } = start(registry, alice);
      const waits = [registry.wait(id, alice), registry.wait(id, alice), registry.wait(id, alice)];
      task.finish({ status: "completed", exitCode: 0 });
      const snapshots = await Promise.all(waits);
      assert.deepEqual(snapshots.map((s) => s.status), ["completed", "completed", "completed"]);
      assert.equal((await registry.wait(id, alice, { timeoutMs: 1 })).status, "completed");
    });
  });

  it("rejects with the signal's reason on abort, before or during the wait", async () => {
    await withRegistry(async (registry) => {
      const { id } = start(registry, alice);
      const reason = new Error("user pressed escape");
      await assert.rejects(
        registry.wait(id, alice, { signal: AbortSignal.abort(reason) }),
        (error) => error === reason,
      );
      const controller = new AbortController();
      const wait = registry.wait(id, alice, { signal: controller.signal, timeoutMs: 10_000 });
      setTimeout(() => controller.abort(reason), 5);
      await assert.rejects(wait, (error) => error === reason);
      assert.equal(registry.get(id, alice).status, "running", "an aborted wait kills nothing");
    });
  });

  it("waits for settlement when the timeout is longer than a timer can hold", async () => {
    await withRegistry(async (registry) => {
      const { id, task } = start(registry, alice);
      setTimeout(() => task.finish({ status: "completed", exitCode: 0 }), 30);
      const snapshot = await registry.wait(id, alice, { timeoutMs: 2 ** 40 });
      assert.equal(snapshot.status, "completed", "a huge timeout did not fire at once");
    });
  });

  it("rejects invalid timeouts with BashConfigError", async () => {
    await withRegistry(async (registry) => {
      const { id } = start(registry, alice);
      for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, "5"]) {
        await assert.rejects(
          registry.wait(id, alice, { timeoutMs: timeoutMs as number }),
          (error: unknown) =>
            error instanceof BashConfigError &&
            /"timeoutMs" must be a positive finite number/.test(error.message),
          `timeoutMs ${String(timeoutMs)}`,
        );
      }
    });
  });

  it("rejects a signal that is not an AbortSignal with BashConfigError, and no options at all", async () => {
    await withRegistry(async (registry) => {
      const { id, task } = start(registry, alice);
      for (const signal of ["abort", { aborted: true }, null]) {
        await assert.rejects(
          registry.wait(id, alice, { signal: signal as unknown as AbortSignal }),
          (error: unknown) =>
            error instanceof BashConfigError &&
            /^"signal" must be an AbortSignal; got .+; pass an AbortController's signal or omit it$/
              .test(error.message),
          JSON.stringify(signal),
        );
      }
      task.finish({ status: "completed", exitCode: 0 });
      const settled = await registry.wait(id, alice, null as unknown as { timeoutMs?: number });
      assert.equal(settled.status, "completed");
    });
  });

  it("wait vs settlement race: exactly one of a settled wait or a notice reaches the owner", async () => {
    await withRegistry(async (registry) => {
      const outcomes = { wait: 0, notice: 0 };
      for (let i = 0; i < 40; i++) {
        const { id, task } = start(registry, alice);
        const finish = (): unknown =>
          setTimeout(() => task.finish({ status: "completed", exitCode: 0 }), 1);
        // Timers with equal delays fire in creation order: alternate which one wins.
        if (i % 2 === 0) finish();
        const wait = registry.wait(id, alice, { timeoutMs: 1 });
        if (i % 2 === 1) finish();
        const snapshot = await wait;
        await tick(2);
        const notices = registry.takeNotices(alice).filter((n) => n.snapshot.id === id);
        if (snapshot.status === "completed") {
          outcomes.wait++;
          assert.equal(notices.length, 0, `${id}: the wait returned it settled`);
        } else {
          outcomes.notice++;
          assert.equal(snapshot.status, "running");
          assert.equal(notices.length, 1, `${id}: the wait timed out first`);
        }
      }
      assert.ok(outcomes.wait > 0 && outcomes.notice > 0, JSON.stringify(outcomes));
    });
  });

  it("rejects a pending wait with UnknownTaskError when the task is dropped unsettled", async () => {
    const errors: unknown[] = [];
    await withRegistry(async (registry) => {
      const { id } = start(
        registry,
        alice,
        fakeTask(() => Promise.reject(new Error("cannot signal"))),
      );
      const wait = registry.wait(id, alice);
      await registry.disposeOwner(alice).catch((error) => errors.push(error));
      await assert.rejects(wait, UnknownTaskError);
    });
    assert.equal(errors.length, 1);
  });
});

describe("TaskRegistry: notices", () => {
  it("delivers a notice exactly once when the owner saw nothing, only to that owner", async () => {
    await withRegistry(async (registry) => {
      const first = start(registry, alice);
      const second = start(registry, alice);
      const theirs = start(registry, bob);
      assert.deepEqual(registry.takeNotices(alice), []);
      second.task.finish({ status: "completed", exitCode: 0 });
      await tick();
      first.task.fail(new Error("boom"));
      theirs.task.finish({ status: "completed", exitCode: 1 });
      await tick();
      registry.get(first.id, alice);
      registry.list(alice);
      const notices = registry.takeNotices(alice);
      assert.deepEqual(
        notices.map((n) => [n.snapshot.id, n.snapshot.status]),
        [[second.id, "completed"], [first.id, "failed"]],
        "in settlement order; get and list do not count as seeing",
      );
      assert.deepEqual(registry.takeNotices(alice), []);
      assert.deepEqual(registry.takeNotices(bob).map((n) => n.snapshot.exitCode), [1]);
    });
  });

  it("sends no notice after a read that returned the final state", async () => {
    await withRegistry(async (registry) => {
      const { id, task } = start(registry, alice);
      assert.equal(registry.read(id, alice).snapshot.status, "running");
      task.finish({ status: "completed", exitCode: 0 });
      await tick();
      assert.equal(registry.read(id, alice).snapshot.status, "completed");
      assert.deepEqual(registry.takeNotices(alice), []);
    });
  });

  it("still sends a notice after a read that returned a running state", async () => {
    await withRegistry(async (registry) => {
      const { id, task } = start(registry, alice);
      registry.read(id, alice);
      task.finish({ status: "completed", exitCode: 0 });
      await tick();
      assert.equal(registry.takeNotices(alice).length, 1);
    });
  });

  it("sends no notice for a task the owner killed, before or after it settled", async () => {
    await withRegistry(async (registry) => {
      const running = start(registry, alice);
      assert.equal(await registry.kill(running.id, alice), "requested");
      await tick();
      assert.equal(registry.get(running.id, alice).status, "killed");
      const finished = start(registry, alice);
      finished.task.finish({ status: "completed", exitCode: 0 });
      await tick();
      assert.equal(await registry.kill(finished.id, alice), "already-finished");
      assert.deepEqual(registry.takeNotices(alice), []);
    });
  });

  it("sends no notice after a wait that returned the task settled", async () => {
    await withRegistry(async (registry) => {
      const { id, task } = start(registry, alice);
      const wait = registry.wait(id, alice);
      task.finish({ status: "completed", exitCode: 0 });
      assert.equal((await wait).status, "completed");
      assert.deepEqual(registry.takeNotices(alice), []);
    });
  });

  it("sends no notice after a wait on a task that had already settled", async () => {
    await withRegistry(async (registry) => {
      const { id, task } = start(registry, alice);
      task.finish({ status: "failed", error: "boom" });
      await tick();
      const snapshot = await registry.wait(id, alice, { timeoutMs: 1_000 });
      assert.deepEqual([snapshot.status, snapshot.error], ["failed", "boom"]);
      assert.deepEqual(registry.takeNotices(alice), []);
    });
  });
});

describe("TaskRegistry: listeners", () => {
  it("calls listeners with the final snapshot and owner; disposers remove one registration", async () => {
    await withRegistry(async (registry) => {
      const calls: string[] = [];
      const listener = (snapshot: TaskSnapshot, owner: TaskOwner): void => {
        calls.push(`${snapshot.id}:${snapshot.status}:${owner}`);
      };
      const offA = registry.onTaskDone(listener);
      const offB = registry.onTaskDone(listener);
      const first = start(registry, alice);
      first.task.finish({ status: "completed", exitCode: 0 });
      await tick();
      assert.deepEqual(calls, ["bash-1:completed:alice", "bash-1:completed:alice"]);
      offA();
      offA();
      const second = start(registry, bob);
      second.task.finish({ status: "completed", exitCode: 0 });
      await tick();
      assert.deepEqual(calls.slice(2), ["bash-2:completed:bob"], "one registration left");
      offB();
      const third = start(registry, bob);
      third.task.finish({ status: "completed", exitCode: 0 });
      await tick();
      assert.equal(calls.length, 3, "no registration left");
    });
  });

  it("runs after pending waits, so a listener's takeNotices skips tasks a wait returned", async () => {
    await withRegistry(async (registry) => {
      const seen: number[] = [];
      registry.onTaskDone((_snapshot, owner) => seen.push(registry.takeNotices(owner).length));
      const { id, task } = start(registry, alice);
      const wait = registry.wait(id, alice);
      task.finish({ status: "completed", exitCode: 0 });
      await wait;
      const other = start(registry, alice);
      other.task.finish({ status: "completed", exitCode: 0 });
      await tick();
      assert.deepEqual(seen, [0, 1]);
    });
  });

  it("a throwing listener breaks neither settlement nor other listeners", async () => {
    const reported: [unknown, string][] = [];
    const registry = new TaskRegistry<string>({
      onListenerError: (error, snapshot) => reported.push([error, snapshot.id]),
    });
    await withRegistry(async () => {
      const boom = new Error("listener bug");
      const calls: string[] = [];
      registry.onTaskDone(() => {
        throw boom;
      });
      registry.onTaskDone((snapshot) => calls.push(snapshot.id));
      const { id, task } = start(registry, alice);
      task.finish({ status: "completed", exitCode: 0 });
      assert.equal((await registry.wait(id, alice)).status, "completed");
      assert.deepEqual(calls, [id]);
      assert.deepEqual(reported, [[boom, id]]);
    }, registry);
  });

  it("a listener whose promise rejects is contained like one that throws", async () => {
    const reported: [unknown, string][] = [];
    const registry = new TaskRegistry<string>({
      onListenerError: (error, snapshot) => reported.push([error, snapshot.id]),
    });
    await withRegistry(async () => {
      const boom = new Error("async listener bug");
      const calls: string[] = [];
      registry.onTaskDone(() => Promise.reject(boom));
      registry.onTaskDone(async () => {
        await tick();
        throw boom;
      });
      registry.onTaskDone((snapshot) => calls.push(snapshot.id));
      const { id, task } = start(registry, alice);
      task.finish({ status: "completed", exitCode: 0 });
      assert.equal((await registry.wait(id, alice)).status, "completed");
      assert.deepEqual(calls, [id]);
      for (let i = 0; i < 5 && reported.length < 2; i++) await tick();
      assert.deepEqual(reported, [[boom, id], [boom, id]]);
    }, registry);
  });

  it("rejects options that are not an object, or an onListenerError that is not a function", () => {
    for (const options of [null, "loud", { onListenerError: "log" }]) {
      assert.throws(
        () => new TaskRegistry(options as unknown as TaskRegistryOptions),
        (error: unknown) =>
          error instanceof BashConfigError &&
          /^"options" must be an object whose optional "onListenerError" is a function; got .+; pass \{\} for the defaults$/
            .test(error.message),
        JSON.stringify(options),
      );
    }
  });

  it("a throwing onListenerError does not break settlement either", async () => {
    const registry = new TaskRegistry<string>({
      onListenerError: () => {
        throw new Error("reporter bug");
      },
    });
    await withRegistry(async () => {
      registry.onTaskDone(() => {
        throw new Error("listener bug");
      });
      const { id, task } = start(registry, alice);
      task.finish({ status: "completed", exitCode: 0 });
      assert.equal((await registry.wait(id, alice)).status, "completed");
    }, registry);
  });

  it("rejects a listener that is not a function", async () => {
    await withRegistry((registry) => {
      assert.throws(
        () => registry.onTaskDone("nope" as unknown as () => void),
        /"listener" must be a function/,
      );
    });
  });
});

describe("TaskRegistry: disposal", () => {
  it("disposeOwner cancels, awaits and drops that owner's tasks only", async () => {
    await withRegistry(async (registry) => {
      const order: string[] = [];
      const slow = fakeTask((_reason, task) => {
        setTimeout(() => {
          order.push("settled");
          task.finish({ status: "killed", signal: "SIGTERM" });
        }, 20);
        return Promise.resolve();
      });
      const mine = start(registry, alice, slow);
      const finished = start(registry, alice);
      finished.task.finish({ status: "completed", exitCode: 0 });
      const theirs = start(registry, bob);
      await tick();
      await registry.disposeOwner(alice);
      order.push("disposed");
      assert.deepEqual(order, ["settled", "disposed"], "awaits the settlement");
      assert.deepEqual(mine.task.cancels, ["disposed with its owner"]);
      assert.deepEqual(finished.task.cancels, [], "settled tasks are not cancelled");
      assert.throws(() => registry.get(mine.id, alice), UnknownTaskError);
      assert.throws(() => registry.get(finished.id, alice), UnknownTaskError);
      assert.deepEqual(registry.list(alice), []);
      assert.deepEqual(registry.takeNotices(alice), [], "dropped tasks have no notices");
      assert.equal(registry.get(theirs.id, bob).status, "running");
      assert.deepEqual(theirs.task.cancels, []);
    });
  });

  it("a wait pending on a disposed task resolves with its settlement", async () => {
    await withRegistry(async (registry) => {
      const { id } = start(registry, alice);
      const wait = registry.wait(id, alice);
      await registry.disposeOwner(alice);
      const snapshot = await wait;
      assert.equal(snapshot.status, "killed");
      assert.equal(snapshot.killReason, "disposed with its owner");
    });
  });

  it("disposeOwner drops a task whose cancel fails and rejects with an AggregateError", async () => {
    await withRegistry(async (registry) => {
      const cause = new Error("cannot signal");
      const stuck = start(registry, alice, fakeTask(() => Promise.reject(cause)));
      const fine = start(registry, alice);
      await assert.rejects(
        registry.disposeOwner(alice),
        (error: unknown) =>
          error instanceof AggregateError && error.errors[0] === cause &&
          /Could not cancel 1 task\(s\) \("bash-1"\)/.test(error.message),
      );
      assert.throws(() => registry.get(stuck.id, alice), UnknownTaskError);
      assert.deepEqual(fine.task.cancels, ["disposed with its owner"]);
    });
  });

  it("a dropped task that settles later sends no notice and calls listeners once", async () => {
    await withRegistry(async (registry) => {
      const seen: string[] = [];
      registry.onTaskDone((snapshot) => seen.push(`${snapshot.id}:${snapshot.status}`));
      const { id, task } = start(
        registry,
        alice,
        fakeTask(() => Promise.reject(new Error("cannot signal"))),
      );
      await assert.rejects(registry.disposeOwner(alice), AggregateError);
      task.finish({ status: "completed", exitCode: 0 });
      await tick();
      assert.deepEqual(registry.takeNotices(alice), []);
      assert.deepEqual(seen, [`${id}:completed`]);
      assert.throws(() => registry.get(id, alice), UnknownTaskError);
    });
  });

  it("disposeOwner with no tasks resolves, and disposing one owner twice is harmless", async () => {
    await withRegistry(async (registry) => {
      const theirs = start(registry, bob);
      await registry.disposeOwner(alice);
      await registry.disposeOwner(alice);
      assert.equal(registry.get(theirs.id, bob).status, "running");
      assert.throws(() => registry.disposeOwner("" as TaskOwner), BashConfigError);
    });
  });

  it("concurrent disposeOwner calls cancel each task once", async () => {
    await withRegistry(async (registry) => {
      const { task } = start(registry, alice);
      await Promise.all([registry.disposeOwner(alice), registry.disposeOwner(alice)]);
      assert.equal(task.cancels.length, 1);
    });
  });

  it("async disposal stops every owner's tasks, is idempotent, and refuses new tasks", async () => {
    const registry = new TaskRegistry<string>();
    const a = start(registry, alice);
    const b = start(registry, bob);
    const first = registry[Symbol.asyncDispose]();
    assert.equal(registry[Symbol.asyncDispose](), first, "same promise");
    await first;
    assert.equal(a.task.cancels.length, 1);
    assert.equal(b.task.cancels.length, 1);
    assert.deepEqual(registry.list(alice), []);
    assert.throws(
      () => start(registry, alice),
      (error: unknown) =>
        error instanceof BashSpawnError && error instanceof BashError &&
        /The task registry is disposed/.test(error.message),
    );
  });

  it("ids dropped by disposeOwner answer DisposedTaskError, saying whether the stop failed", async () => {
    await withRegistry(async (registry) => {
      const stopped = start(registry, alice);
      const stuck = start(registry, alice, fakeTask(() => Promise.reject(new Error("no"))));
      const pending = registry.wait(stuck.id, alice);
      await assert.rejects(registry.disposeOwner(alice), AggregateError);
      const isDisposed = (id: string, cancelFailed: boolean) => (error: unknown) =>
        error instanceof DisposedTaskError && !(error instanceof ExpiredTaskError) &&
        error.code === "disposed-task" && error.taskId === id && error.by === "owner" &&
        error.cancelFailed === cancelFailed;
      await assert.rejects(pending, isDisposed(stuck.id, true));
      assert.throws(() => registry.get(stopped.id, alice), isDisposed(stopped.id, false));
      assert.throws(() => registry.read(stuck.id, alice), isDisposed(stuck.id, true));
      assert.throws(
        () => registry.get(stopped.id, alice),
        (error: Error) =>
          error.message ===
            `Task "${stopped.id}" was dropped because its owner was disposed (stopped first if it was running), and its output with it; run the command again if you still need it`,
      );
      assert.throws(
        () => registry.get(stuck.id, alice),
        (error: Error) =>
          error.message ===
            `Task "${stuck.id}" was dropped because its owner was disposed, but stopping it failed, so it may still be running; stop it by other means, then run the command again if you still need it`,
      );
      assert.throws(() => registry.get(stopped.id, bob), TaskOwnershipError);
    });
  });

  it("after the registry's disposal, its tasks' ids say so at every call; others stay unknown", async () => {
    const registry = new TaskRegistry<string>();
    const running = start(registry, alice);
    const stuck = start(registry, bob, fakeTask(() => Promise.reject(new Error("no"))));
    const pending = registry.wait(stuck.id, bob);
    await assert.rejects(registry[Symbol.asyncDispose](), AggregateError);
    const byRegistry = (cancelFailed: boolean) => (error: unknown) =>
      error instanceof DisposedTaskError && error.by === "registry" &&
      error.cancelFailed === cancelFailed &&
      /because the task registry was disposed.*create a new TaskRegistry to run tasks again$/.test(
        error.message,
      );
    await assert.rejects(pending, byRegistry(true));
    assert.throws(() => registry.get(running.id, alice), byRegistry(false));
    assert.throws(() => registry.read(running.id, alice), byRegistry(false));
    await assert.rejects(registry.kill(running.id, alice), byRegistry(false));
    await assert.rejects(registry.wait(running.id, alice), byRegistry(false));
    assert.throws(() => registry.get(stuck.id, bob), byRegistry(true));
    assert.throws(
      () => registry.get("bash-9", alice),
      (error: unknown) =>
        error instanceof UnknownTaskError && !(error instanceof DisposedTaskError),
    );
  });

  it("close() is the same disposal: same promise, tasks stopped, new tasks refused", async () => {
    const registry = new TaskRegistry<string>();
    const { task } = start(registry, alice);
    const closing = registry.close();
    assert.equal(registry[Symbol.asyncDispose](), closing, "same promise");
    await closing;
    assert.equal(task.cancels.length, 1);
    assert.throws(() => start(registry, alice), BashSpawnError);
  });
});
