/**
 * The task registry: kind-agnostic bookkeeping for tasks that outlive the
 * call that started them (background commands), fenced by owner, with
 * completion notices delivered exactly once.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * await using registry = new TaskRegistry();
 * assert.deepEqual(registry.takeNotices(taskOwner("session-1")), []);
 * ```
 *
 * @module
 */
export {
  DisposedTaskError,
  ExpiredTaskError,
  TaskLimitError,
  TaskOwnershipError,
  UnknownTaskError,
} from "./errors.ts";
export { type TaskOwner, taskOwner } from "./owner.ts";
export { TaskRegistry } from "./registry.ts";
export type { TaskRegistryOptions } from "./options.ts";
export type { TaskHooks, TaskNotice, TaskSettlement, TaskSnapshot, TaskStatus } from "./task.ts";
