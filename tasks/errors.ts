import { BashError } from "../seam/errors.ts";

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
