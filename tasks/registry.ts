import { BashConfigError, BashSpawnError } from "../seam/errors.ts";
import { TaskLimitError, TaskOwnershipError } from "./errors.ts";
import { disposeEntries } from "./_disposal.ts";
import { type Disposed, TaskIds } from "./_ids.ts";
import { DoneListeners } from "./_listeners.ts";
import { waitFor } from "./_wait.ts";
import { SeenTasks } from "./_retention.ts";
import { failedSettlement, normalizeSettlement, TaskEntry } from "./_entry.ts";
import {
  assertHooks,
  assertKind,
  assertLabel,
  assertOwnerToken,
  assertSignal,
  timerDelay,
  timerOption,
  wholeOption,
} from "./_validate.ts";
import { describeValue } from "../seam/_checks.ts";
import type { TaskOwner } from "./owner.ts";
import type { TaskHooks, TaskNotice, TaskSettlement, TaskSnapshot } from "./task.ts";

/**
 * Options of a {@linkcode TaskRegistry}.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import { TaskRegistry, type TaskRegistryOptions } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * const errors: unknown[] = [];
 * const options: TaskRegistryOptions = { onListenerError: (error) => errors.push(error) };
 * await using registry = new TaskRegistry(options);
 * assert.ok(registry instanceof TaskRegistry);
 * ```
 */
export interface TaskRegistryOptions {
  /**
   * Called when an `onTaskDone` listener throws or its returned promise
   * rejects, and when a call the registry makes on its own fails (the
   * `release` of a task it let go, the `cancel` at the maximum lifetime). The
   * error never affects the settlement or the other listeners. Defaults to
   * logging with `console.error`.
   */
  onListenerError?: (error: unknown, snapshot: TaskSnapshot) => void;
  /**
   * How many settled tasks whose final state was seen are kept per owner
   * (default 100, at least 1); past it the oldest seen is let go.
   */
  maxSettledTasksPerOwner?: number;
  /**
   * How long a settled task is kept after its final state was seen, in
   * milliseconds (default 1800000, 30 minutes).
   */
  settledTaskTtlMs?: number;
  /**
   * How many tasks an owner may have running (or stopping) at once (default
   * 64); `register` refuses more with `TaskLimitError`.
   */
  maxRunningTasksPerOwner?: number;
  /**
   * When set, a task still running this many milliseconds after it was
   * registered is stopped, with a `killReason` that says so (default: none).
   */
  maxTaskLifetimeMs?: number;
}

/** The defaults of the retention and limit options. */
const DEFAULT_MAX_SETTLED = 100;
const DEFAULT_SETTLED_TTL_MS = 30 * 60_000;
const DEFAULT_MAX_RUNNING = 64;

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
  readonly #tasks = new Map<string, TaskEntry<Output>>();
  readonly #ids = new TaskIds();
  readonly #listeners = new DoneListeners();
  /** Settled tasks whose notice is still due, in settlement order. */
  readonly #unnoticed = new Set<TaskEntry<Output>>();
  readonly #seen: SeenTasks<Output>;
  readonly #onListenerError: (error: unknown, snapshot: TaskSnapshot) => void;
  readonly #maxRunning: number;
  readonly #maxLifetimeMs: number | undefined;
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
    const valid = typeof options === "object" && options !== null &&
      (options.onListenerError === undefined || typeof options.onListenerError === "function");
    if (!valid) {
      throw new BashConfigError(
        `"options" must be an object whose optional "onListenerError" is a function; got ${
          describeValue(options?.onListenerError ?? options)
        }; pass {} for the defaults`,
      );
    }
    this.#onListenerError = options.onListenerError ??
      ((error, snapshot) =>
        console.error(
          `A TaskRegistry listener or a hook it called on its own failed for task "${snapshot.id}":`,
          error,
        ));
    const maxSettled = wholeOption(
      "maxSettledTasksPerOwner",
      options.maxSettledTasksPerOwner ?? DEFAULT_MAX_SETTLED,
      1,
      `omit it for ${DEFAULT_MAX_SETTLED}`,
    );
    const settledTtlMs = timerOption(
      "settledTaskTtlMs",
      options.settledTaskTtlMs ?? DEFAULT_SETTLED_TTL_MS,
      `omit it for ${DEFAULT_SETTLED_TTL_MS} (30 minutes)`,
    );
    this.#seen = new SeenTasks(maxSettled, settledTtlMs);
    this.#maxRunning = wholeOption(
      "maxRunningTasksPerOwner",
      options.maxRunningTasksPerOwner ?? DEFAULT_MAX_RUNNING,
      1,
      `omit it for ${DEFAULT_MAX_RUNNING}`,
    );
    this.#maxLifetimeMs = options.maxTaskLifetimeMs === undefined
      ? undefined
      : timerOption("maxTaskLifetimeMs", options.maxTaskLifetimeMs, "omit it for no limit");
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
    let running = 0;
    for (const entry of this.#tasks.values()) {
      if (entry.owner === owner && !entry.settled) running++;
    }
    if (running >= this.#maxRunning) throw new TaskLimitError(this.#maxRunning);
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
    this.#prune();
    this.checkCapacity(owner);
    const entry = new TaskEntry(this.#ids.issue(kind), { kind, label, owner, hooks }, Date.now());
    this.#tasks.set(entry.id, entry);
    if (this.#maxLifetimeMs !== undefined) {
      const reason = `ran longer than the maximum lifetime of ${this.#maxLifetimeMs} ms`;
      entry.lifetimeTimer = setTimeout(() => {
        entry.requestStop(reason).catch((error) => this.#report(error, entry));
      }, this.#maxLifetimeMs);
    }
    Promise.resolve(hooks.done).then(
      (value) => this.#settle(entry, normalizeSettlement(value)),
      (error) => this.#settle(entry, failedSettlement(error)),
    );
    return entry.snapshot();
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
    if (entry.settled) this.#acknowledge(entry);
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
    if (reason !== undefined && typeof reason !== "string") {
      throw new BashConfigError(
        `"reason" must be a string; got ${describeValue(reason)}; pass a short sentence or omit it`,
      );
    }
    if (entry.settled) {
      this.#acknowledge(entry);
      return "already-finished";
    }
    entry.acknowledged = true;
    try {
      await entry.requestStop(reason);
    } catch (error) {
      if (!entry.settled) entry.acknowledged = false;
      throw error;
    }
    return "requested";
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
        if (reason === "dropped") throw this.#ids.goneError(id, owner);
        const snapshot = entry.snapshot();
        if (entry.settled) this.#acknowledge(entry);
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
    this.#prune();
    const snapshots: TaskSnapshot[] = [];
    for (const entry of this.#tasks.values()) {
      if (entry.owner === owner) snapshots.push(entry.snapshot());
    }
    return snapshots;
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
    if (typeof listener !== "function") {
      throw new BashConfigError(
        `"listener" must be a function; got ${describeValue(listener)}; pass a callback`,
      );
    }
    return this.#listeners.add(listener);
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
    this.#prune();
    const notices: TaskNotice[] = [];
    for (const entry of this.#unnoticed) {
      if (entry.owner !== owner) continue;
      this.#acknowledge(entry);
      notices.push({ snapshot: entry.snapshot() });
    }
    return notices;
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
    return this.#disposeWhere((entry) => entry.owner === owner, "owner");
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
    this.#disposal ??= this.#disposeWhere(() => true, "registry");
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
    this.#prune();
    const entry = typeof id === "string" ? this.#tasks.get(id) : undefined;
    if (entry === undefined) throw this.#ids.goneError(id, owner);
    if (entry.owner !== owner) throw new TaskOwnershipError(id);
    return entry;
  }

  #acknowledge(entry: TaskEntry<Output>): void {
    entry.acknowledged = true;
    this.#unnoticed.delete(entry);
    if (entry.settled) this.#markSeen(entry);
  }

  /** Starts the retention of a settled task its owner saw; lets the oldest seen go past the cap. */
  #markSeen(entry: TaskEntry<Output>): void {
    if (this.#tasks.get(entry.id) !== entry) return;
    for (const oldest of this.#seen.add(entry, Date.now())) this.#drop(oldest);
  }

  /** Lets go of every seen task older than the time limit. */
  #prune(): void {
    for (const entry of this.#seen.expired(Date.now())) this.#drop(entry);
  }

  /** Reports an error of a call the registry made on its own. */
  #report(error: unknown, entry: TaskEntry<Output>): void {
    try {
      this.#onListenerError(error, entry.snapshot());
    } catch {
      // A failing error reporter must not break the registry either.
    }
  }

  #release(entry: TaskEntry<Output>): void {
    const release = entry.hooks.release;
    if (release === undefined) return;
    Promise.resolve()
      .then(() => release.call(entry.hooks))
      .catch((error: unknown) => this.#report(error, entry));
  }

  #settle(entry: TaskEntry<Output>, settlement: TaskSettlement): void {
    entry.settle(settlement, Date.now());
    clearTimeout(entry.lifetimeTimer);
    const registered = this.#tasks.get(entry.id) === entry;
    if (!entry.acknowledged && registered) this.#unnoticed.add(entry);
    if (entry.acknowledged) this.#markSeen(entry);
    if (!registered) this.#release(entry);
    entry.wake("settled");
    this.#listeners.notify(entry.snapshot(), entry.owner, (error) => this.#report(error, entry));
  }

  #disposeWhere(matches: (entry: TaskEntry<Output>) => boolean, by: Disposed["by"]): Promise<void> {
    return disposeEntries(
      () => [...this.#tasks.values()].filter(matches),
      (entry, cancelFailed) => this.#drop(entry, { owner: entry.owner, by, cancelFailed }),
    );
  }

  /**
   * Forgets a task; a settled one is released now, an unsettled one when it
   * settles. `disposed` says which disposal dropped it (none: retention let it go).
   */
  #drop(entry: TaskEntry<Output>, disposed?: Disposed): void {
    if (this.#tasks.get(entry.id) !== entry) return;
    this.#tasks.delete(entry.id);
    if (disposed !== undefined) this.#ids.recordDisposed(entry.id, disposed);
    this.#unnoticed.delete(entry);
    clearTimeout(entry.lifetimeTimer);
    this.#seen.delete(entry);
    if (entry.settled) this.#release(entry);
    entry.wake("dropped");
  }
}
