import { MAX_TERMINAL_CELLS } from "../../seam/mod.ts";
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

/**
 * How long `task_input` waits for the terminal's answer when the call does
 * not say, in milliseconds.
 *
 * @example
 * ```ts
 * import { DEFAULT_INPUT_WAIT_MS } from "./_task_inputs.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(DEFAULT_INPUT_WAIT_MS, 250);
 * ```
 */
export const DEFAULT_INPUT_WAIT_MS = 250;

/**
 * The longest `task_input` wait a model may ask for, in milliseconds.
 *
 * @example
 * ```ts
 * import { MAX_INPUT_WAIT_MS } from "./_task_inputs.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(MAX_INPUT_WAIT_MS, 60_000);
 * ```
 */
export const MAX_INPUT_WAIT_MS = 60_000;

/**
 * How long a terminal's output must stay quiet, once the program answered,
 * for `task_input` to reply before its `wait_ms`, in milliseconds: long
 * enough for an answer to arrive in one piece, short next to a model's turn.
 *
 * @example
 * ```ts
 * import { INPUT_QUIET_MS } from "./_task_inputs.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(INPUT_QUIET_MS, 50);
 * ```
 */
export const INPUT_QUIET_MS = 50;

/**
 * A terminal's `rows` or `cols` field: a whole number from 1 to the seam's
 * `MAX_TERMINAL_CELLS`, described by `description`.
 *
 * @example
 * ```ts
 * import { terminalCells } from "./_task_inputs.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(terminalCells("The terminal's rows.").maximum, 1000);
 * ```
 */
export function terminalCells(description: string): JsonSchemaProperty {
  return { type: "integer", minimum: 1, maximum: MAX_TERMINAL_CELLS, description };
}

const RESIZE =
  "before typing (the other side stays); the program redraws, and the reply shows the new screen.";

/**
 * The `task_input` tool's input schema: `task_id`, the `input` to type, how
 * long to wait for the screen (`wait_ms`), and optionally a new size
 * (`rows`, `cols`).
 *
 * @example
 * ```ts
 * import { TASK_INPUT_SCHEMA } from "./_task_inputs.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(TASK_INPUT_SCHEMA.required, ["task_id", "input"]);
 * assert.equal(TASK_INPUT_SCHEMA.properties.wait_ms?.maximum, 60_000);
 * ```
 */
export const TASK_INPUT_SCHEMA: ObjectJsonSchema = {
  type: "object",
  properties: {
    task_id: {
      ...TASK_ID,
      description: "The id of a task started with terminal: true, such as bash-1.",
    },
    input: {
      type: "string",
      description:
        'What to type, exactly: end a line with "\\r" (Enter). Control keys are characters: "\\u0003" Ctrl-C, "\\u0004" Ctrl-D, "\\u001b" Escape, "\\u001b[A" up arrow, "\\t" Tab. An empty string types nothing and just reads the screen.',
    },
    wait_ms: {
      type: "integer",
      minimum: 0,
      maximum: MAX_INPUT_WAIT_MS,
      description:
        `The longest to wait after typing before reading the screen, in milliseconds (at most ${MAX_INPUT_WAIT_MS}). The reply comes sooner once the program answered and went quiet for ${INPUT_QUIET_MS} ms, or the task ended. Defaults to ${DEFAULT_INPUT_WAIT_MS}; give more for slow commands.`,
    },
    rows: terminalCells(`Resize the terminal to this many rows ${RESIZE}`),
    cols: terminalCells(`Resize the terminal to this many columns ${RESIZE}`),
  },
  required: ["task_id", "input"],
  additionalProperties: false,
};
