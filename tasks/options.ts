import type { TaskSnapshot } from "./task.ts";

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
