/**
 * `@shellseam/bash`: the bash capability of an AI agent harness. This entry
 * re-exports the seam; import an executor from `@shellseam/bash/local` or
 * `@shellseam/bash/sandbox`, and the model-facing tools from `@shellseam/bash/tool`.
 *
 * @example
 * ```ts
 * import { BashExecutor, BashSpawnError } from "@shellseam/bash";
 * import assert from "node:assert/strict";
 *
 * assert.equal(typeof BashExecutor, "function");
 * assert.equal(new BashSpawnError("x").code, "spawn");
 * ```
 *
 * @module
 */
export * from "./seam/mod.ts";
// Task errors live with the tasks; the root keeps exporting them.
export {
  ExpiredTaskError,
  TaskLimitError,
  TaskOwnershipError,
  UnknownTaskError,
} from "./tasks/mod.ts";
