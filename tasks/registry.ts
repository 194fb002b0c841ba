import { BashConfigError, BashSpawnError } from "../seam/errors.ts";
import { TaskOwnershipError, UnknownTaskError } from "./errors.ts";
import { failedSettlement, normalizeSettlement, TaskEntry, type WakeReason } from "./_entry.ts";
import {
  assertHooks,
  assertKind,
  assertLabel,
  assertOwnerToken,
  assertSignal,
  timerDelay,
} from "./_validate.ts";
import { describeValue } from "../seam/_checks.ts";
import type { TaskOwner } from "./owner.ts";
import type { TaskHooks, TaskNotice, TaskSettlement, TaskSnapshot } from "./task.ts";

/**
 * Options of a {@linkcode TaskRegistry}.
 *
 * @example
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
   * rejects. The error never affects the
   * settlement or the other listeners. Defaults to logging with `console.error`.
   */
  onListenerError?: (error: unknown, snapshot: TaskSnapshot) => void;
}

/** The reason recorded as `killReason` when `disposeOwner` or disposal stops a task. */
const DISPOSE_REASON = "disposed with its owner";

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
 * @example Start, wait and read a fake task
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
  readonly #counters = new Map<string, number>();
  readonly #listeners = new Set<
    { listener: (snapshot: TaskSnapshot, owner: TaskOwner) => void }
  >();
  /** Settled tasks whose notice is still due, in settlement order. */
  readonly #unnoticed = new Set<TaskEntry<Output>>();
  readonly #onListenerError: (error: unknown, snapshot: TaskSnapshot) => void;
  #disposal: Promise<void> | undefined;

  /**
   * Creates an empty registry.
   *
   * @throws {BashConfigError} when `options` is not an object or `onListenerError` is not a function.
   *
   * @example
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
          `A TaskRegistry onTaskDone listener threw for task "${snapshot.id}":`,
          error,
        ));
  }

  /**
   * Registers a started task and returns its first snapshot. Synchronous and
   * atomic: either the task is registered with a fresh `<kind>-N` id, or this
   * throws and the caller still owns (and must cancel) the task.
   *
   * @throws {BashConfigError} on an invalid kind, label, owner or hooks.
   * @throws {BashSpawnError} once the registry is disposed.
   *
   * @example Ids count per kind
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
    const n = (this.#counters.get(kind) ?? 0) + 1;
    this.#counters.set(kind, n);
    const entry = new TaskEntry(`${kind}-${n}`, { kind, label, owner, hooks }, Date.now());
    this.#tasks.set(entry.id, entry);
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
   * @throws {UnknownTaskError} for an id never issued or already dropped.
   * @throws {TaskOwnershipError} for another owner's task.
   *
   * @example
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
   * @throws {UnknownTaskError} for an id never issued or already dropped.
   * @throws {TaskOwnershipError} for another owner's task.
   *
   * @example
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
   * @throws {UnknownTaskError} for an id never issued or already dropped.
   * @throws {TaskOwnershipError} for another owner's task.
   *
   * @example
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
      await this.#requestStop(entry, reason);
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
   * abort of `signal` rejects with the signal's reason; a task dropped by
   * `disposeOwner` while waited on rejects with {@linkcode UnknownTaskError}.
   *
   * @throws {BashConfigError} when `timeoutMs` is not a positive finite number or `signal`
   * is not an `AbortSignal`.
   * @throws {UnknownTaskError} for an id never issued or already dropped.
   * @throws {TaskOwnershipError} for another owner's task.
   *
   * @example A wait that times out
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
    return new Promise<TaskSnapshot>((resolve, reject) => {
      const entry = this.#entry(id, owner);
      const delay = timerDelay(options?.timeoutMs);
      const signal = options?.signal;
      assertSignal(signal);
      signal?.throwIfAborted();
      if (entry.settled) {
        this.#acknowledge(entry);
        resolve(entry.snapshot());
        return;
      }
      const finish = (reason: WakeReason | "timeout" | "abort"): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        entry.waiters.delete(finish);
        if (reason === "abort") return reject(signal?.reason);
        if (reason === "dropped") return reject(new UnknownTaskError(id));
        // Taken now, not when the caller resumes, so the state returned and the
        // notice bookkeeping agree even when a timeout races the settlement.
        const snapshot = entry.snapshot();
        if (entry.settled) this.#acknowledge(entry);
        resolve(snapshot);
      };
      const onAbort = (): void => finish("abort");
      const timer = delay === undefined ? undefined : setTimeout(() => finish("timeout"), delay);
      signal?.addEventListener("abort", onAbort, { once: true });
      entry.waiters.add(finish);
    });
  }

  /**
   * Snapshots of every task of the owner, in registration order. Other
   * owners' tasks never appear. An observation only, like `get`.
   *
   * @example
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
   * @example
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
    const registration = { listener };
    this.#listeners.add(registration);
    return () => {
      this.#listeners.delete(registration);
    };
  }

  /**
   * Returns, once each, the notices of the owner's tasks that settled since
   * the last call and whose final state the owner has not seen, in
   * settlement order.
   *
   * @example
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
   * (their ids become unknown; pending waits on them reject). Other owners'
   * tasks are untouched. If a task's `cancel` rejects, that task is dropped
   * without being awaited and this rejects with an `AggregateError` of the
   * cancel errors once the rest are done.
   *
   * @example
   * ```ts
   * import {
   *   TaskRegistry,
   *   taskOwner,
   *   type TaskSettlement,
   *   UnknownTaskError,
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
   * assert.throws(() => registry.get(id, owner), UnknownTaskError);
   * ```
   */
  disposeOwner(owner: TaskOwner): Promise<void> {
    assertOwnerToken(owner, "owner");
    return this.#disposeWhere((entry) => entry.owner === owner);
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
    this.#disposal ??= this.#disposeWhere(() => true);
    return this.#disposal;
  }

  #entry(id: string, owner: TaskOwner): TaskEntry<Output> {
    assertOwnerToken(owner, "owner");
    const entry = typeof id === "string" ? this.#tasks.get(id) : undefined;
    if (entry === undefined) throw new UnknownTaskError(String(id));
    if (entry.owner !== owner) throw new TaskOwnershipError(id);
    return entry;
  }

  #acknowledge(entry: TaskEntry<Output>): void {
    entry.acknowledged = true;
    this.#unnoticed.delete(entry);
  }

  #settle(entry: TaskEntry<Output>, settlement: TaskSettlement): void {
    entry.settle(settlement, Date.now());
    if (!entry.acknowledged && this.#tasks.get(entry.id) === entry) this.#unnoticed.add(entry);
    entry.wake("settled");
    const snapshot = entry.snapshot();
    const report = (error: unknown): void => {
      try {
        this.#onListenerError(error, snapshot);
      } catch {
        // A failing error reporter must not break settlement either.
      }
    };
    for (const { listener } of [...this.#listeners]) {
      try {
        // An async listener's rejection is contained like a throw, not left unhandled.
        const returned: unknown = listener(snapshot, entry.owner);
        if (isThenable(returned)) Promise.resolve(returned).catch(report);
      } catch (error) {
        report(error);
      }
    }
  }

  #requestStop(entry: TaskEntry<Output>, reason: string | undefined): Promise<void> {
    if (entry.stopRequest === undefined) {
      entry.status = "stopping";
      entry.killReason = reason;
      const request = Promise.resolve()
        .then(() => (entry.settled ? undefined : entry.hooks.cancel(reason)))
        .catch((error: unknown) => {
          if (entry.settled) return;
          entry.stopRequest = undefined;
          entry.status = "running";
          entry.killReason = undefined;
          throw error;
        });
      entry.stopRequest = request;
    }
    return entry.stopRequest;
  }

  async #disposeWhere(matches: (entry: TaskEntry<Output>) => boolean): Promise<void> {
    const failures: { id: string; error: unknown }[] = [];
    for (;;) {
      const entries = [...this.#tasks.values()].filter(matches);
      if (entries.length === 0) break;
      await Promise.all(entries.map(async (entry) => {
        if (!entry.settled) {
          try {
            await this.#requestStop(entry, DISPOSE_REASON);
            await entry.settledOrDropped();
          } catch (error) {
            failures.push({ id: entry.id, error });
          }
        }
        this.#drop(entry);
      }));
    }
    if (failures.length > 0) {
      throw new AggregateError(
        failures.map((f) => f.error),
        `Could not cancel ${failures.length} task(s) (${
          failures.map((f) => `"${f.id}"`).join(", ")
        }); they were dropped but may still be running, so stop them by other means`,
      );
    }
  }

  #drop(entry: TaskEntry<Output>): void {
    if (this.#tasks.get(entry.id) !== entry) return;
    this.#tasks.delete(entry.id);
    this.#unnoticed.delete(entry);
    entry.wake("dropped");
  }
}

/** True for a promise or any object with a `then` method. */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null &&
    typeof (value as { then?: unknown }).then === "function";
}
