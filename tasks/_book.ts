import { TaskLimitError, TaskOwnershipError, type UnknownTaskError } from "./errors.ts";
import { disposeEntries } from "./_disposal.ts";
import { failedSettlement, normalizeSettlement, TaskEntry } from "./_entry.ts";
import { type Disposed, TaskIds } from "./_ids.ts";
import { DoneListeners } from "./_listeners.ts";
import type { RegistrySettings } from "./_options.ts";
import { SeenTasks } from "./_retention.ts";
import type { TaskOwner } from "./owner.ts";
import type { TaskHooks, TaskNotice, TaskSettlement, TaskSnapshot } from "./task.ts";

/**
 * The bookkeeping behind a `TaskRegistry`, which checks its callers'
 * arguments and hands the rest to this. It keeps the tasks by id, and a task
 * goes through it in this order:
 * 1. `add` gives a started task its id and its lifetime timer, and watches
 *    its `done` promise;
 * 2. when `done` settles, the final state is recorded, a notice is due unless
 *    the owner already acknowledged the task, pending waits are woken and the
 *    listeners called;
 * 3. once the owner has seen the final state (`acknowledge`), retention may
 *    let the task go; a disposal drops tasks whatever their state;
 * 4. a task let go or dropped is forgotten, and its hooks' `release` is
 *    called once it has settled.
 *
 * Each call that looks tasks up first lets go of the tasks past the time
 * limit (there is no timer).
 */
export class TaskBook<Output> {
  readonly #tasks = new Map<string, TaskEntry<Output>>();
  readonly #ids = new TaskIds();
  /** Settled tasks whose notice is still due, in settlement order. */
  readonly #unnoticed = new Set<TaskEntry<Output>>();
  readonly #seen: SeenTasks<Output>;
  readonly #settings: RegistrySettings;
  /** The `onTaskDone` listeners, called at each settlement. */
  readonly listeners: DoneListeners = new DoneListeners();

  constructor(settings: RegistrySettings) {
    this.#settings = settings;
    this.#seen = new SeenTasks(settings.maxSettled, settings.settledTtlMs);
  }

  /** Throws `TaskLimitError` when the owner has `maxRunning` tasks running or stopping. */
  checkCapacity(owner: TaskOwner): void {
    let running = 0;
    for (const entry of this.#tasks.values()) {
      if (entry.owner === owner && !entry.settled) running++;
    }
    if (running >= this.#settings.maxRunning) throw new TaskLimitError(this.#settings.maxRunning);
  }

  /** Keeps a started task under a fresh id, unless its owner is at the limit. */
  add(
    task: { kind: string; label: string; owner: TaskOwner; hooks: TaskHooks<Output> },
  ): TaskEntry<Output> {
    this.#prune();
    this.checkCapacity(task.owner);
    const entry = new TaskEntry(this.#ids.issue(task.kind), task, Date.now());
    this.#tasks.set(entry.id, entry);
    const lifetimeMs = this.#settings.maxLifetimeMs;
    if (lifetimeMs !== undefined) {
      const reason = `ran longer than the maximum lifetime of ${lifetimeMs} ms`;
      entry.lifetimeTimer = setTimeout(() => {
        entry.requestStop(reason).catch((error) => this.#report(error, entry));
      }, lifetimeMs);
    }
    Promise.resolve(task.hooks.done).then(
      (value) => this.#settle(entry, normalizeSettlement(value)),
      (error) => this.#settle(entry, failedSettlement(error)),
    );
    return entry;
  }

  /** The owner's task `id`, or the error that says why it cannot be had. */
  entry(id: string, owner: TaskOwner): TaskEntry<Output> {
    this.#prune();
    const entry = typeof id === "string" ? this.#tasks.get(id) : undefined;
    if (entry === undefined) throw this.goneError(id, owner);
    if (entry.owner !== owner) throw new TaskOwnershipError(id);
    return entry;
  }

  /** The error for an id no longer kept: why it went, if it was issued. */
  goneError(id: unknown, owner: TaskOwner): UnknownTaskError | TaskOwnershipError {
    return this.#ids.goneError(id, owner);
  }

  /** Snapshots of the owner's tasks, in registration order. */
  list(owner: TaskOwner): TaskSnapshot[] {
    this.#prune();
    const snapshots: TaskSnapshot[] = [];
    for (const entry of this.#tasks.values()) {
      if (entry.owner === owner) snapshots.push(entry.snapshot());
    }
    return snapshots;
  }

  /** The notices due to the owner, in settlement order; each is handed out once. */
  takeNotices(owner: TaskOwner): TaskNotice[] {
    this.#prune();
    const notices: TaskNotice[] = [];
    for (const entry of this.#unnoticed) {
      if (entry.owner !== owner) continue;
      this.acknowledge(entry);
      notices.push({ snapshot: entry.snapshot() });
    }
    return notices;
  }

  /** Records that the owner has seen the task's final state, or stopped it: no notice is due. */
  acknowledge(entry: TaskEntry<Output>): void {
    entry.acknowledged = true;
    this.#unnoticed.delete(entry);
    if (entry.settled) this.#markSeen(entry);
  }

  /**
   * Asks the task to stop, for `kill`: the owner is sent no notice for it,
   * unless the cancel fails before the task settled.
   */
  async kill(
    entry: TaskEntry<Output>,
    reason: string | undefined,
  ): Promise<"requested" | "already-finished"> {
    if (entry.settled) {
      this.acknowledge(entry);
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

  /** Stops and drops every task that `matches`; `by` says which disposal it is. */
  dispose(matches: (entry: TaskEntry<Output>) => boolean, by: Disposed["by"]): Promise<void> {
    return disposeEntries(
      () => [...this.#tasks.values()].filter(matches),
      (entry, cancelFailed) => this.#drop(entry, { owner: entry.owner, by, cancelFailed }),
    );
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
      this.#settings.report(error, entry.snapshot());
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
    this.listeners.notify(entry.snapshot(), entry.owner, (error) => this.#report(error, entry));
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
