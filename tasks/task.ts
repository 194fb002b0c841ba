/**
 * Where a task is in its life. `running` until someone asks it to stop,
 * `stopping` while a kill is in flight, then one of the final states reported
 * by its `done` promise: `completed`, `killed` or `failed`.
 *
 * @example
 * ```ts
 * import type { TaskStatus } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * const isFinal = (status: TaskStatus): boolean => status !== "running" && status !== "stopping";
 * assert.equal(isFinal("killed"), true);
 * assert.equal(isFinal("stopping"), false);
 * ```
 */
export type TaskStatus = "running" | "stopping" | "completed" | "killed" | "failed";

/**
 * How a task ended, as its `done` promise reports it. This is the truth the
 * registry records, even when a kill was requested before it.
 *
 * @example
 * ```ts
 * import type { TaskSettlement } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * const settlement: TaskSettlement = { status: "killed", exitCode: null, signal: "SIGTERM" };
 * assert.equal(settlement.signal, "SIGTERM");
 * ```
 */
export interface TaskSettlement {
  /** The final status. */
  status: "completed" | "killed" | "failed";
  /** The exit code, when the task has one; `null` or absent otherwise. */
  exitCode?: number | null;
  /** The signal that ended the task, when one did. */
  signal?: string | null;
  /** What went wrong, for a `failed` task. */
  error?: string;
}

/**
 * What a task kind hands the registry when it registers a started task. The
 * registry knows nothing else about the task.
 *
 * @example Hooks over a timer
 * ```ts
 * import type { TaskHooks, TaskSettlement } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * let finish!: (settlement: TaskSettlement) => void;
 * const done = new Promise<TaskSettlement>((resolve) => (finish = resolve));
 * const timer = setTimeout(() => finish({ status: "completed", exitCode: 0 }), 60_000);
 * const hooks: TaskHooks<string> = {
 *   cancel: () => {
 *     clearTimeout(timer);
 *     finish({ status: "killed", signal: "SIGTERM" });
 *     return Promise.resolve();
 *   },
 *   done,
 *   readOutput: () => "tick",
 * };
 * await hooks.cancel("no longer needed");
 * assert.equal((await hooks.done).status, "killed");
 * ```
 */
export interface TaskHooks<Output> {
  /**
   * Asks the task to stop. The registry shows the task as `stopping` from the
   * request until `done` settles. A resolved cancel must lead `done` to settle
   * (disposal awaits it). A rejection fails the kill and puts the task back to
   * `running`.
   */
  cancel(reason?: string): Promise<void>;
  /**
   * Settles once, when the task has ended. A rejection settles the task as
   * `failed` with the error's message.
   */
  done: Promise<TaskSettlement>;
  /** A consuming read of the output produced since the last read; passed through by `read()`. */
  readOutput?(): Output;
  /**
   * Frees what the task holds (buffers, files) once the registry lets the
   * settled task go; called at most once, never before `done` settled.
   */
  release?(): Promise<void> | void;
}

/**
 * A point-in-time copy of a task's state, safe to keep and to show.
 *
 * @example
 * ```ts
 * import type { TaskSnapshot } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * const snapshot: TaskSnapshot = {
 *   id: "bash-1",
 *   kind: "bash",
 *   label: "npm run dev",
 *   status: "running",
 *   exitCode: null,
 *   signal: null,
 *   startedAt: Date.now(),
 * };
 * assert.equal(snapshot.endedAt, undefined);
 * ```
 */
export interface TaskSnapshot {
  /** `<kind>-N`, unique within its registry and never reused. */
  id: string;
  /** The kind given at registration, such as `bash`. */
  kind: string;
  /** The label given at registration, such as the command. */
  label: string;
  /** The status when the snapshot was taken. */
  status: TaskStatus;
  /** The exit code once settled, if the task had one. */
  exitCode: number | null;
  /** The signal that ended the task, if one did. */
  signal: string | null;
  /** What went wrong, for a `failed` task. */
  error?: string;
  /** The reason given to the kill that was requested, if any (the first one wins). */
  killReason?: string;
  /** When the task was registered, in epoch milliseconds. */
  startedAt: number;
  /** When the task settled, in epoch milliseconds. */
  endedAt?: number;
}

/**
 * Tells an owner that one of its tasks settled while it was not looking.
 *
 * @example
 * ```ts
 * import type { TaskNotice } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * const render = (notice: TaskNotice): string =>
 *   `Task ${notice.snapshot.id} finished [status: ${notice.snapshot.status}]`;
 * const notice: TaskNotice = {
 *   snapshot: {
 *     id: "bash-2",
 *     kind: "bash",
 *     label: "make",
 *     status: "completed",
 *     exitCode: 0,
 *     signal: null,
 *     startedAt: 0,
 *     endedAt: 10,
 *   },
 * };
 * assert.equal(render(notice), "Task bash-2 finished [status: completed]");
 * ```
 */
export interface TaskNotice {
  /** The task as it settled. */
  snapshot: TaskSnapshot;
}
