import { BashSpawnError } from "../seam/errors.ts";
import { TaskBook } from "./_book.ts";
import type { TaskEntry } from "./_entry.ts";
import { registrySettings } from "./_options.ts";
import {
  assertHooks,
  assertKind,
  assertLabel,
  assertListener,
  assertOwnerToken,
  assertReason,
  assertSignal,
  timerDelay,
} from "./_validate.ts";
import { waitFor } from "./_wait.ts";
import type { TaskRegistryOptions } from "./options.ts";
import type { TaskOwner } from "./owner.ts";
import type { TaskHooks, TaskNotice, TaskSnapshot } from "./task.ts";

/**
 * Keeps the tasks (background commands, ...) that owners started, fenced by
 * owner: ids are `<kind>-N` with a counter per kind, another owner's id fails
 * with {@linkcode TaskOwnershipError} and an unknown one with
 * {@linkcode UnknownTaskError}. The registry is kind-agnostic: a task is only
 * its {@linkcode TaskHooks}.
 *
 * The `done` promise of the hooks is the truth about how a task ended: the
 * first settlement wins, and a task whose kill was requested but that
 * completed on its own first is `completed` (with the `killReason` of the
 * request still recorded).
 *
 * Completion notices: {@linkcode TaskRegistry.takeNotices} returns one notice
 * per settled task, once, unless the owner already saw the final state: a
 * `read` that returned a final snapshot, its own `kill` of the task, or a
 * `wait` that returned it settled. `get` and `list` are plain observations
 * and do not count.
 *
 * Long sessions stay bounded. A settled task is kept until its owner saw its
 * final state (as above, or by taking its notice), then for
 * `settledTaskTtlMs` and among the newest `maxSettledTasksPerOwner` seen
 * ones; then it is let go: dropped, its hooks' `release` called (a bash task
 * frees its buffers and deletes its spill files), and its id answers
 * {@linkcode ExpiredTaskError} (the id of a task dropped by `disposeOwner` or
 * the registry's disposal answers {@linkcode DisposedTaskError}). A task whose final state was not seen is
 * never let go. The limits are checked at each call of the registry (there
 * is no timer). Running tasks are bounded too: `maxRunningTasksPerOwner`
 * (refused with {@linkcode TaskLimitError}) and an optional
 * `maxTaskLifetimeMs`.
 *
 * @example Start, wait and read a fake task, on Deno and Node 24 (`await using`)
 * ```ts
 * import { TaskRegistry, taskOwner, type TaskSettlement } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * await using registry = new TaskRegistry<string>();
 * const owner = taskOwner("session-1");
 * const done = Promise.resolve<TaskSettlement>({ status: "completed", exitCode: 0 });
 * const started = registry.register({
 *   kind: "bash",
 *   label: "echo hi",
 *   owner,
 *   hooks: { cancel: () => Promise.resolve(), done, readOutput: () => "hi\n" },
 * });
 * assert.equal(started.id, "bash-1");
 * const settled = await registry.wait(started.id, owner);
 * assert.equal(settled.status, "completed");
 * assert.equal(registry.read(started.id, owner).output, "hi\n");
 * assert.deepEqual(registry.takeNotices(owner), []); // the wait already showed it
 * ```
 */
export class TaskRegistry<Output = unknown> implements AsyncDisposable {
  readonly #book: TaskBook<Output>;
  #disposal: Promise<void> | undefined;

  /**
   * Creates an empty registry.
   *
   * @throws {BashConfigError} when `options` is not an object, `onListenerError` is not a
   * function, or a limit is not a whole number (`maxSettledTasksPerOwner`,
   * `maxRunningTasksPerOwner`, at least 1) or a duration a timer can wait
   * (`settledTaskTtlMs`, `maxTaskLifetimeMs`).
   *
   * @example On Deno and Node 24 (`await using`)
   * ```ts
   * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
   * import assert from "node:assert/strict";
   *
   * await using registry = new TaskRegistry();
   * assert.deepEqual(registry.list(taskOwner("anyone")), []);
   * ```
   */
  constructor(options: TaskRegistryOptions = {}) {
    this.#book = new TaskBook(registrySettings(options));
  }

  /**
   * Throws {@linkcode TaskLimitError} when the owner already has
   * `maxRunningTasksPerOwner` tasks running or stopping, so a caller can
   * refuse before it starts anything; `register` checks the same.
   *
   * @throws {TaskLimitError} when the owner is at the limit.
   *
   * @example On Deno and Node 24 (`await using`)
   * ```ts
   * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
   * import { TaskLimitError } from "@shellseam/bash/tasks";
   * import assert from "node:assert/strict";
   *
   * await using registry = new TaskRegistry({ maxRunningTasksPerOwner: 1 });
   * const owner = taskOwner("s");
   * let stop!: () => void;
   * const done = new Promise<{ status: "killed" }>((resolve) => (stop = () => resolve({ status: "killed" })));
   * registry.checkCapacity(owner);
   * registry.register({ kind: "bash", label: "sleep 100", owner, hooks: { cancel: () => Promise.resolve(stop()), done } });
   * assert.throws(() => registry.checkCapacity(owner), TaskLimitError);
   * ```
   */
  checkCapacity(owner: TaskOwner): void {
    assertOwnerToken(owner, "owner");
    this.#book.checkCapacity(owner);
  }

  /**
   * Registers a started task and returns its first snapshot. Synchronous and
   * atomic: either the task is registered with a fresh `<kind>-N` id, or this
   * throws and the caller still owns (and must cancel) the task.
   *
   * @throws {BashConfigError} on an invalid kind, label, owner or hooks.
   * @throws {TaskLimitError} when the owner has `maxRunningTasksPerOwner` tasks running.
   * @throws {BashSpawnError} once the registry is disposed.
   *
   * @example Ids count per kind, on Deno and Node 24 (`await using`)
   * ```ts
   * import { TaskRegistry, taskOwner, type TaskHooks } from "@shellseam/bash/tasks";
   * import assert from "node:assert/strict";
   *
   * const hooks = (): TaskHooks<never> => ({
   *   cancel: () => Promise.resolve(),
   *   done: Promise.resolve({ status: "completed" }),
   * });
   * await using registry = new TaskRegistry();
   * const owner = taskOwner("s");
   * const ids = [
   *   registry.register({ kind: "bash", label: "a", owner, hooks: hooks() }).id,
   *   registry.register({ kind: "bash", label: "b", owner, hooks: hooks() }).id,
   *   registry.register({ kind: "agent", label: "c", owner, hooks: hooks() }).id,
   * ];
   * assert.deepEqual(ids, ["bash-1", "bash-2", "agent-1"]);
   * ```
   */
  register(
    options: { kind: string; label: string; owner: TaskOwner; hooks: TaskHooks<Output> },
  ): TaskSnapshot {
    const { kind, label, owner, hooks } = options;
    if (this.#disposal) {
      throw new BashSpawnError(
        `The task registry is disposed, so the "${kind}" task "${label}" was not registered; cancel it and create a new TaskRegistry`,
      );
    }
    assertKind(kind);
    assertLabel(label);
    assertOwnerToken(owner, "owner");
    assertHooks(hooks);
    return this.#book.add({ kind, label, owner, hooks }).snapshot();
  }

  /**
   * The current snapshot of one of the owner's tasks. An observation only: it
   * does not count as seeing the final state.
   *
   * @throws {UnknownTaskError} for an id never issued ({@linkcode ExpiredTaskError} for one let go,
   * {@linkcode DisposedTaskError} for one dropped by a disposal).
   * @throws {TaskOwnershipError} for another owner's task.
   *
   * @example On Deno and Node 24 (`await using`)
   * ```ts
   * import { TaskOwnershipError, TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
   * import assert from "node:assert/strict";
   *
   * await using registry = new TaskRegistry();
   * const alice = taskOwner("alice");
   * const { id } = registry.register({
   *   kind: "bash",
   *   label: "sleep 1",
   *   owner: alice,
   *   hooks: { cancel: () => Promise.resolve(), done: Promise.resolve({ status: "completed" }) },
   * });
   * assert.equal(registry.get(id, alice).label, "sleep 1");
   * assert.throws(() => registry.get(id, taskOwner("bob")), TaskOwnershipError);
   * ```
   */
  get(id: string, owner: TaskOwner): TaskSnapshot {
    return this.#entry(id, owner).snapshot();
  }

  /**
   * The task's snapshot and a consuming read of its output (`undefined` when
   * its hooks have no `readOutput`). A read that returns a final snapshot
   * counts as the owner seeing it: no notice follows.
   *
   * @throws {UnknownTaskError} for an id never issued ({@linkcode ExpiredTaskError} for one let go,
   * {@linkcode DisposedTaskError} for one dropped by a disposal).
   * @throws {TaskOwnershipError} for another owner's task.
   *
   * @example On Deno and Node 24 (`await using`)
   * ```ts
   * import { TaskRegistry, taskOwner, type TaskSettlement } from "@shellseam/bash/tasks";
   * import assert from "node:assert/strict";
   *
   * await using registry = new TaskRegistry<string>();
   * const owner = taskOwner("s");
   * const chunks = ["one", "two"];
   * let finish!: (settlement: TaskSettlement) => void;
   * const { id } = registry.register({
   *   kind: "bash",
   *   label: "printf",
   *   owner,
   *   hooks: {
   *     cancel: () => Promise.resolve(finish({ status: "killed" })),
   *     done: new Promise((resolve) => (finish = resolve)),
   *     readOutput: () => chunks.shift() ?? "",
   *   },
   * });
   * assert.equal(registry.read(id, owner).output, "one");
   * assert.equal(registry.read(id, owner).output, "two");
   * assert.equal(registry.read(id, owner).snapshot.status, "running");
   * ```
   */
  read(id: string, owner: TaskOwner): { snapshot: TaskSnapshot; output: Output | undefined } {
    const entry = this.#entry(id, owner);
    const output = entry.hooks.readOutput?.();
    const snapshot = entry.snapshot();
    if (entry.settled) this.#book.acknowledge(entry);
    return { snapshot, output };
  }

  /**
   * Asks one of the owner's tasks to stop: the status is `stopping` from the
   * call until `done` settles, and `killReason` keeps the first reason given.
   * Resolves with `"requested"` once the hooks' `cancel` resolved (a kill
   * already in flight is shared, not repeated), or `"already-finished"` for a
   * settled task. Either way the owner is not sent a notice for this task. If
   * `cancel` rejects before the task settled, the task is `running` again and
   * this rejects with that error.
   *
   * @throws {UnknownTaskError} for an id never issued ({@linkcode ExpiredTaskError} for one let go,
   * {@linkcode DisposedTaskError} for one dropped by a disposal).
   * @throws {TaskOwnershipError} for another owner's task.
   *
   * @example On Deno and Node 24 (`await using`)
   * ```ts
   * import { TaskRegistry, taskOwner, type TaskSettlement } from "@shellseam/bash/tasks";
   * import assert from "node:assert/strict";
   *
   * await using registry = new TaskRegistry();
   * const owner = taskOwner("s");
   * let finish!: (settlement: TaskSettlement) => void;
   * const { id } = registry.register({
   *   kind: "bash",
   *   label: "sleep 100",
   *   owner,
   *   hooks: {
   *     cancel: () => Promise.resolve(finish({ status: "killed", signal: "SIGTERM" })),
   *     done: new Promise((resolve) => (finish = resolve)),
   *   },
   * });
   * assert.equal(await registry.kill(id, owner, "not needed"), "requested");
   * const settled = await registry.wait(id, owner);
   * assert.equal(settled.status, "killed");
   * assert.equal(settled.killReason, "not needed");
   * assert.equal(await registry.kill(id, owner), "already-finished");
   * ```
   */
  async kill(
    id: string,
    owner: TaskOwner,
    reason?: string,
  ): Promise<"requested" | "already-finished"> {
    const entry = this.#entry(id, owner);
    assertReason(reason);
    return await this.#book.kill(entry, reason);
  }

  /**
   * Waits for one of the owner's tasks to settle and returns its snapshot,
   * or, after `timeoutMs`, the snapshot as it is then (still `running` or
   * `stopping`). A returned final snapshot counts as the owner seeing it. An
   * abort of `signal` rejects with the signal's reason; a task dropped while
   * waited on (its cancel failed at a disposal) rejects with
   * {@linkcode DisposedTaskError}.
   *
   * @throws {BashConfigError} when `timeoutMs` is not a positive finite number or `signal`
   * is not an `AbortSignal`.
   * @throws {UnknownTaskError} for an id never issued ({@linkcode ExpiredTaskError} for one let go,
   * {@linkcode DisposedTaskError} for one dropped by a disposal).
   * @throws {TaskOwnershipError} for another owner's task.
   *
   * @example A wait that times out, on Deno and Node 24 (`await using`)
   * ```ts
   * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
   * import assert from "node:assert/strict";
   *
   * await using registry = new TaskRegistry();
   * const owner = taskOwner("s");
   * let stop!: () => void;
   * const done = new Promise<{ status: "killed" }>((resolve) => (stop = () => resolve({ status: "killed" })));
   * const { id } = registry.register({
   *   kind: "bash",
   *   label: "tail -f log",
   *   owner,
   *   hooks: { cancel: () => Promise.resolve(stop()), done },
   * });
   * const snapshot = await registry.wait(id, owner, { timeoutMs: 10 });
   * assert.equal(snapshot.status, "running");
   * ```
   */
  wait(
    id: string,
    owner: TaskOwner,
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<TaskSnapshot> {
    try {
      const entry = this.#entry(id, owner);
      const delay = timerDelay(options?.timeoutMs);
      const signal = options?.signal;
      assertSignal(signal);
      return waitFor(entry, delay, signal, (reason) => {
        if (reason === "dropped") throw this.#book.goneError(id, owner);
        const snapshot = entry.snapshot();
        if (entry.settled) this.#book.acknowledge(entry);
        return snapshot;
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Snapshots of every task of the owner, in registration order. Other
   * owners' tasks never appear. An observation only, like `get`.
   *
   * @example On Deno and Node 24 (`await using`)
   * ```ts
   * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
   * import assert from "node:assert/strict";
   *
   * await using registry = new TaskRegistry();
   * const hooks = { cancel: () => Promise.resolve(), done: Promise.resolve({ status: "completed" as const }) };
   * registry.register({ kind: "bash", label: "mine", owner: taskOwner("alice"), hooks });
   * registry.register({ kind: "bash", label: "theirs", owner: taskOwner("bob"), hooks });
   * assert.deepEqual(registry.list(taskOwner("alice")).map((t) => t.label), ["mine"]);
   * ```
   */
  list(owner: TaskOwner): TaskSnapshot[] {
    assertOwnerToken(owner, "owner");
    return this.#book.list(owner);
  }

  /**
   * Calls `listener` with the final snapshot and the owner of every task that
   * settles, whether or not a notice is due (pending waits are resolved
   * first, so a listener that calls `takeNotices` sees only notices still
   * due). A listener that throws, or returns a promise that rejects, is
   * reported to `onListenerError` and changes nothing else (later listeners
   * still run). Returns a disposer that removes this registration.
   *
   * @example On Deno and Node 24 (`await using`)
   * ```ts
   * import { TaskRegistry, taskOwner, type TaskSnapshot } from "@shellseam/bash/tasks";
   * import assert from "node:assert/strict";
   *
   * await using registry = new TaskRegistry();
   * const seen: string[] = [];
   * const off = registry.onTaskDone((snapshot: TaskSnapshot) => seen.push(snapshot.id));
   * const owner = taskOwner("s");
   * const { id } = registry.register({
   *   kind: "bash",
   *   label: "true",
   *   owner,
   *   hooks: { cancel: () => Promise.resolve(), done: Promise.resolve({ status: "completed" }) },
   * });
   * await registry.wait(id, owner);
   * off();
   * assert.deepEqual(seen, ["bash-1"]);
   * ```
   */
  onTaskDone(
    listener: (snapshot: TaskSnapshot, owner: TaskOwner) => void,
  ): () => void {
    assertListener(listener);
    return this.#book.listeners.add(listener);
  }

  /**
   * Returns, once each, the notices of the owner's tasks that settled since
   * the last call and whose final state the owner has not seen, in
   * settlement order.
   *
   * @example On Deno and Node 24 (`await using`)
   * ```ts
   * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
   * import assert from "node:assert/strict";
   *
   * await using registry = new TaskRegistry();
   * const owner = taskOwner("s");
   * const done = Promise.resolve({ status: "completed" as const, exitCode: 0 });
   * registry.register({ kind: "bash", label: "make", owner, hooks: { cancel: () => Promise.resolve(), done } });
   * await done;
   * await Promise.resolve(); // let the registry record the settlement
   * assert.deepEqual(registry.takeNotices(owner).map((n) => n.snapshot.id), ["bash-1"]);
   * assert.deepEqual(registry.takeNotices(owner), []);
   * ```
   */
  takeNotices(owner: TaskOwner): TaskNotice[] {
    assertOwnerToken(owner, "owner");
    return this.#book.takeNotices(owner);
  }

  /**
   * Cancels every task of the owner, awaits their settlement and drops them
   * (their ids answer {@linkcode DisposedTaskError}; pending waits on them
   * reject with it). Other owners'
   * tasks are untouched. If a task's `cancel` rejects, that task is dropped
   * without being awaited and this rejects with an `AggregateError` of the
   * cancel errors once the rest are done.
   *
   * @example On Deno and Node 24 (`await using`)
   * ```ts
   * import {
   *   TaskRegistry,
   *   taskOwner,
   *   type TaskSettlement,
   *   DisposedTaskError,
   * } from "@shellseam/bash/tasks";
   * import assert from "node:assert/strict";
   *
   * await using registry = new TaskRegistry();
   * const owner = taskOwner("s");
   * let finish!: (settlement: TaskSettlement) => void;
   * const { id } = registry.register({
   *   kind: "bash",
   *   label: "sleep 100",
   *   owner,
   *   hooks: {
   *     cancel: () => Promise.resolve(finish({ status: "killed", signal: "SIGTERM" })),
   *     done: new Promise((resolve) => (finish = resolve)),
   *   },
   * });
   * await registry.disposeOwner(owner);
   * assert.throws(() => registry.get(id, owner), DisposedTaskError);
   * ```
   */
  disposeOwner(owner: TaskOwner): Promise<void> {
    assertOwnerToken(owner, "owner");
    return this.#book.dispose((entry) => entry.owner === owner, "owner");
  }

  /**
   * Disposes every owner's tasks, like `disposeOwner`, and refuses further
   * registrations. Calling it again returns the same promise.
   *
   * @example
   * ```ts
   * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
   * import { BashSpawnError } from "@shellseam/bash/seam";
   * import assert from "node:assert/strict";
   *
   * const registry = new TaskRegistry();
   * await registry[Symbol.asyncDispose]();
   * const hooks = { cancel: () => Promise.resolve(), done: new Promise<never>(() => {}) };
   * assert.throws(
   *   () => registry.register({ kind: "bash", label: "x", owner: taskOwner("s"), hooks }),
   *   BashSpawnError,
   * );
   * ```
   */
  [Symbol.asyncDispose](): Promise<void> {
    this.#disposal ??= this.#book.dispose(() => true, "registry");
    return this.#disposal;
  }

  /**
   * The same as disposal (`await using`), for code that cannot use
   * `await using` (plain JavaScript on Node 22): call it in a `finally`.
   *
   * @example
   * ```ts
   * import { TaskRegistry } from "@shellseam/bash/tasks";
   * import assert from "node:assert/strict";
   *
   * const registry = new TaskRegistry();
   * const closing = registry.close();
   * assert.equal(registry.close(), closing);
   * await closing;
   * ```
   */
  close(): Promise<void> {
    return this[Symbol.asyncDispose]();
  }

  #entry(id: string, owner: TaskOwner): TaskEntry<Output> {
    assertOwnerToken(owner, "owner");
    return this.#book.entry(id, owner);
  }
}
