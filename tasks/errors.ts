import { BashError, type BashErrorCode, BashSpawnError } from "../seam/errors.ts";

/**
 * A task id that the registry does not know (never issued, or already dropped).
 *
 * @example
 * ```ts
 * import { UnknownTaskError } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * const error = new UnknownTaskError("bash-9");
 * assert.equal(error.taskId, "bash-9");
 * assert.match(error.message, /list your tasks/);
 * ```
 */
export class UnknownTaskError extends BashError {
  /** The id that was asked for. */
  readonly taskId: string;

  /** Creates the error for one task id. */
  constructor(taskId: string, options?: ErrorOptions) {
    super(
      "unknown-task",
      `Unknown task id "${taskId}"; list your tasks to see their ids`,
      options,
    );
    this.name = "UnknownTaskError";
    this.taskId = taskId;
  }
}

/**
 * A task id that exists but belongs to another owner. The owner of the task
 * is never named in the message.
 *
 * @example
 * ```ts
 * import { TaskOwnershipError } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * const error = new TaskOwnershipError("bash-1");
 * assert.equal(error.code, "task-ownership");
 * ```
 */
export class TaskOwnershipError extends BashError {
  /** The id that was asked for. */
  readonly taskId: string;

  /** Creates the error for one task id. */
  constructor(taskId: string, options?: ErrorOptions) {
    super(
      "task-ownership",
      `Task "${taskId}" belongs to another owner; list your tasks to see their ids`,
      options,
    );
    this.name = "TaskOwnershipError";
    this.taskId = taskId;
  }
}

/**
 * A task id that was issued but is no longer kept: the registry let the
 * settled task go some time after its owner saw its final state, and its
 * output with it (a task a disposal dropped answers
 * {@linkcode DisposedTaskError} instead). It is an
 * {@linkcode UnknownTaskError} too, so code that handles unknown ids keeps
 * working.
 *
 * @example
 * ```ts
 * import { ExpiredTaskError, UnknownTaskError } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * const error = new ExpiredTaskError("bash-3");
 * assert.ok(error instanceof UnknownTaskError);
 * assert.equal(error.code, "expired-task");
 * assert.match(error.message, /no longer kept/);
 * ```
 */
export class ExpiredTaskError extends UnknownTaskError {
  /** Always `"expired-task"`. */
  override readonly code: BashErrorCode = "expired-task";

  /** Creates the error for one task id. */
  constructor(taskId: string, options?: ErrorOptions) {
    super(taskId, options);
    this.name = "ExpiredTaskError";
    this.message =
      `Task "${taskId}" is no longer kept: a finished task is let go a while after its final state was seen, and its output with it; run the command again if you need that output, and list the tasks to see those still kept`;
  }
}

/**
 * A task id that was issued but dropped by a disposal: `disposeOwner` of its
 * owner (`by: "owner"`) or the registry's own disposal (`by: "registry"`).
 * A running task was asked to stop first; `cancelFailed` is true when that
 * failed, so the task may still be running outside the registry. It is an
 * {@linkcode UnknownTaskError} too, so code that handles unknown ids keeps
 * working.
 *
 * @example
 * ```ts
 * import { DisposedTaskError, UnknownTaskError } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * const error = new DisposedTaskError("bash-2", "registry", false);
 * assert.ok(error instanceof UnknownTaskError);
 * assert.equal(error.code, "disposed-task");
 * assert.match(error.message, /the task registry was disposed/);
 * ```
 */
export class DisposedTaskError extends UnknownTaskError {
  /** Always `"disposed-task"`. */
  override readonly code: BashErrorCode = "disposed-task";
  /** What was disposed: the task's owner (`disposeOwner`) or the whole registry. */
  readonly by: "owner" | "registry";
  /** True when stopping the running task failed: it may still be running. */
  readonly cancelFailed: boolean;

  /** Creates the error for one task id dropped by a disposal. */
  constructor(
    taskId: string,
    by: "owner" | "registry",
    cancelFailed: boolean,
    options?: ErrorOptions,
  ) {
    super(taskId, options);
    this.name = "DisposedTaskError";
    this.by = by;
    this.cancelFailed = cancelFailed;
    const what = by === "registry" ? "the task registry was disposed" : "its owner was disposed";
    const then = by === "registry"
      ? "create a new TaskRegistry to run tasks again"
      : "run the command again if you still need it";
    this.message = cancelFailed
      ? `Task "${taskId}" was dropped because ${what}, but stopping it failed, so it may still be running; stop it by other means, then ${then}`
      : `Task "${taskId}" was dropped because ${what} (stopped first if it was running), and its output with it; ${then}`;
  }
}

/**
 * A task was refused because its owner already has as many running tasks as
 * the registry allows. Nothing was started or registered.
 *
 * @example
 * ```ts
 * import { BashSpawnError } from "@shellseam/bash/seam";
 * import { TaskLimitError } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * const error = new TaskLimitError(32);
 * assert.ok(error instanceof BashSpawnError);
 * assert.equal(error.limit, 32);
 * assert.match(error.message, /already has 32 running tasks/);
 * ```
 */
export class TaskLimitError extends BashSpawnError {
  /** Always `"task-limit"`. */
  override readonly code: BashErrorCode = "task-limit";
  /** How many running tasks an owner may have. */
  readonly limit: number;

  /** Creates the error for an owner at `limit` running tasks. */
  constructor(limit: number, options?: ErrorOptions) {
    super(
      `This owner already has ${limit} running tasks, the most allowed, so no new one was started; stop one that is no longer needed, then try again`,
      options,
    );
    this.name = "TaskLimitError";
    this.limit = limit;
  }
}
