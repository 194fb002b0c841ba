import { assertOwnerToken } from "./_validate.ts";

/**
 * Who a task belongs to: an opaque token (a session id, a connection id, ...)
 * that the registry compares with `===` and never interprets or reveals.
 *
 * @example
 * ```ts
 * import { type TaskOwner, taskOwner } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * const owner: TaskOwner = taskOwner("session-42");
 * assert.equal(owner, taskOwner("session-42"));
 * ```
 */
export type TaskOwner = string & { readonly __taskOwner: unique symbol };

/**
 * Brands a non-empty token as a {@linkcode TaskOwner}. Equal tokens are the
 * same owner.
 *
 * @throws {BashConfigError} when the token is not a non-empty string.
 *
 * @example
 * ```ts
 * import { taskOwner } from "@shellseam/bash/tasks";
 * import { BashConfigError } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * assert.notEqual(taskOwner("alice"), taskOwner("bob"));
 * assert.throws(() => taskOwner(""), BashConfigError);
 * ```
 */
export function taskOwner(token: string): TaskOwner {
  assertOwnerToken(token, "token");
  return token as TaskOwner;
}
