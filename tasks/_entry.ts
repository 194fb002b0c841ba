import { messageOf } from "../seam/message.ts";
import type { TaskOwner } from "./owner.ts";
import type { TaskHooks, TaskSettlement, TaskSnapshot, TaskStatus } from "./task.ts";

const FINAL_STATUSES: ReadonlySet<string> = new Set(["completed", "killed", "failed"]);

/** Why a pending `wait` is woken up by the task itself. */
export type WakeReason = "settled" | "dropped";

/** One registered task: its hooks and the state the registry keeps for it. */
export class TaskEntry<Output> {
  readonly id: string;
  readonly kind: string;
  readonly label: string;
  readonly owner: TaskOwner;
  readonly hooks: TaskHooks<Output>;
  readonly startedAt: number;
  status: TaskStatus = "running";
  exitCode: number | null = null;
  signal: string | null = null;
  error: string | undefined;
  killReason: string | undefined;
  endedAt: number | undefined;
  /** The owner saw the final state or killed the task itself: no notice is due. */
  acknowledged = false;
  /** When the owner first saw the settled task: from then on it may be let go. */
  seenAt: number | undefined;
  /** The timer that stops the task at the registry's maximum lifetime. */
  lifetimeTimer: ReturnType<typeof setTimeout> | undefined;
  /** The cancel in flight, shared by every kill until it resolves or fails. */
  stopRequest: Promise<void> | undefined;
  /** Callbacks of pending waits and disposals. */
  readonly waiters: Set<(reason: WakeReason) => void> = new Set();

  constructor(
    id: string,
    options: { kind: string; label: string; owner: TaskOwner; hooks: TaskHooks<Output> },
    startedAt: number,
  ) {
    this.id = id;
    this.kind = options.kind;
    this.label = options.label;
    this.owner = options.owner;
    this.hooks = options.hooks;
    this.startedAt = startedAt;
  }

  get settled(): boolean {
    return this.endedAt !== undefined;
  }

  /** Records the final state; `done` settles once, so this runs once per task. */
  settle(settlement: TaskSettlement, endedAt: number): void {
    this.status = settlement.status;
    this.exitCode = settlement.exitCode ?? null;
    this.signal = settlement.signal ?? null;
    this.error = settlement.error;
    this.endedAt = endedAt;
  }

  /** Wakes every pending waiter once. */
  wake(reason: WakeReason): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const waiter of waiters) waiter(reason);
  }

  /**
   * Asks the task to stop: the status is `stopping` and `killReason` is
   * `reason` from now on, and the hooks' `cancel` is called unless the task
   * settled first. Later calls share this request. A cancel that fails before
   * the task settled puts the task back to `running` and rejects, so the next
   * call asks again.
   */
  requestStop(reason: string | undefined): Promise<void> {
    if (this.stopRequest === undefined) {
      this.status = "stopping";
      this.killReason = reason;
      this.stopRequest = Promise.resolve()
        .then(() => (this.settled ? undefined : this.hooks.cancel(reason)))
        .catch((error: unknown) => {
          if (this.settled) return;
          this.stopRequest = undefined;
          this.status = "running";
          this.killReason = undefined;
          throw error;
        });
    }
    return this.stopRequest;
  }

  /** Resolves once the task settled or was dropped. */
  settledOrDropped(): Promise<void> {
    if (this.settled) return Promise.resolve();
    return new Promise((resolve) => this.waiters.add(() => resolve()));
  }

  snapshot(): TaskSnapshot {
    const snapshot: TaskSnapshot = {
      id: this.id,
      kind: this.kind,
      label: this.label,
      status: this.status,
      exitCode: this.exitCode,
      signal: this.signal,
      startedAt: this.startedAt,
    };
    if (this.error !== undefined) snapshot.error = this.error;
    if (this.killReason !== undefined) snapshot.killReason = this.killReason;
    if (this.endedAt !== undefined) snapshot.endedAt = this.endedAt;
    return snapshot;
  }
}

/** Turns whatever `done` resolved with into a valid settlement (an invalid one is a failure). */
export function normalizeSettlement(value: unknown): TaskSettlement {
  const raw = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  if (typeof raw.status !== "string" || !FINAL_STATUSES.has(raw.status)) {
    return {
      status: "failed",
      error: `The task's "done" promise resolved without a final status (got ${
        JSON.stringify(raw.status) ?? "undefined"
      }); it must resolve with "completed", "killed" or "failed"`,
    };
  }
  const settlement: TaskSettlement = {
    status: raw.status as TaskSettlement["status"],
    exitCode: typeof raw.exitCode === "number" ? raw.exitCode : null,
    signal: typeof raw.signal === "string" ? raw.signal : null,
  };
  if (typeof raw.error === "string") settlement.error = raw.error;
  return settlement;
}

/** The settlement of a task whose `done` promise rejected. */
export function failedSettlement(error: unknown): TaskSettlement {
  return { status: "failed", error: messageOf(error) };
}
