import type { JsonSchemaProperty, ObjectJsonSchema } from "./_json_schema.ts";
import { NON_BLANK_PATTERN, type ValidateOptions } from "./_validate.ts";

const TASK_ID: JsonSchemaProperty = {
  type: "string",
  pattern: NON_BLANK_PATTERN,
  description: 'The task id from "started background task <id>" or task_list, such as bash-1.',
};

/**
 * The longest `task_output` wait a model may ask for, in milliseconds.
 *
 * @example
 * ```ts
 * import { MAX_TASK_WAIT_MS } from "./_task_inputs.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(MAX_TASK_WAIT_MS, 10 * 60 * 1000);
 * ```
 */
export const MAX_TASK_WAIT_MS = 600_000;

/**
 * How long a `task_output` call with `wait: true` and no `timeout_ms` waits,
 * in milliseconds.
 *
 * @example
 * ```ts
 * import { DEFAULT_TASK_WAIT_MS } from "./_task_inputs.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(DEFAULT_TASK_WAIT_MS, 30_000);
 * ```
 */
export const DEFAULT_TASK_WAIT_MS = 30_000;

/**
 * The `task_output` tool's input schema: `task_id`, and optionally `wait`
 * with a `timeout_ms` of at most {@linkcode MAX_TASK_WAIT_MS}.
 *
 * @example
 * ```ts
 * import { TASK_OUTPUT_SCHEMA } from "./_task_inputs.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(TASK_OUTPUT_SCHEMA.required, ["task_id"]);
 * assert.equal(TASK_OUTPUT_SCHEMA.properties.timeout_ms?.maximum, 600_000);
 * ```
 */
export const TASK_OUTPUT_SCHEMA: ObjectJsonSchema = {
  type: "object",
  properties: {
    task_id: TASK_ID,
    wait: {
      type: "boolean",
      description:
        "Block until the task finishes or timeout_ms passes, then read. Use it instead of calling task_output again and again.",
    },
    timeout_ms: {
      type: "integer",
      minimum: 1,
      maximum: MAX_TASK_WAIT_MS,
      description:
        `With wait: true, the longest to wait, in milliseconds (at most ${MAX_TASK_WAIT_MS}). Defaults to ${DEFAULT_TASK_WAIT_MS}.`,
    },
  },
  required: ["task_id"],
  additionalProperties: false,
};

/**
 * The `task_list` tool's input schema: no fields.
 *
 * @example
 * ```ts
 * import { TASK_LIST_SCHEMA } from "./_task_inputs.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(TASK_LIST_SCHEMA.properties, {});
 * ```
 */
export const TASK_LIST_SCHEMA: ObjectJsonSchema = {
  type: "object",
  properties: {},
  required: [],
  additionalProperties: false,
};

/**
 * The `task_kill` tool's input schema: `task_id` and an optional `reason`.
 *
 * @example
 * ```ts
 * import { TASK_KILL_SCHEMA } from "./_task_inputs.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(Object.keys(TASK_KILL_SCHEMA.properties), ["task_id", "reason"]);
 * ```
 */
export const TASK_KILL_SCHEMA: ObjectJsonSchema = {
  type: "object",
  properties: {
    task_id: TASK_ID,
    reason: {
      type: "string",
      description:
        "Why you are stopping it, in a few words; shown as the kill reason in the task's [status: ...].",
    },
  },
  required: ["task_id"],
  additionalProperties: false,
};

/**
 * `task_output`'s check across fields: a `timeout_ms` only with `wait: true`.
 *
 * @example
 * ```ts
 * import { TASK_OUTPUT_CHECKS, TASK_OUTPUT_SCHEMA, validateToolArguments } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const args = { task_id: "bash-1", timeout_ms: 5000 };
 * const check = validateToolArguments("task_output", TASK_OUTPUT_SCHEMA, args, TASK_OUTPUT_CHECKS);
 * assert.equal(check.ok, false);
 * assert.match(check.ok ? "" : check.message, /timeout_ms applies only with wait: true/);
 * ```
 */
export const TASK_OUTPUT_CHECKS: ValidateOptions = {
  refine: (value) =>
    value.timeout_ms !== undefined && value.wait !== true
      ? [
        "timeout_ms applies only with wait: true; add wait: true to block until the task finishes, or drop timeout_ms",
      ]
      : [],
};
