/**
 * The tool argument schemas and their checks: each tool's input schema as a
 * JSON Schema object (`bash`, the task tools, `git_commit`), the check that
 * `execute` runs on the arguments a model sent (one line per problem, with a
 * hint for a field a tool never takes), and the same schema as a Standard
 * Schema for the agent frameworks.
 *
 * @example
 * ```ts
 * import { TASK_KILL_SCHEMA, validateToolArguments } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(validateToolArguments("task_kill", TASK_KILL_SCHEMA, '{"task_id": "bash-1"}'), {
 *   ok: true,
 *   value: { task_id: "bash-1" },
 * });
 * assert.equal(validateToolArguments("task_kill", TASK_KILL_SCHEMA, {}).ok, false);
 * ```
 *
 * @module
 */
export { BASH_CHECKS, bashInputSchema } from "./_bash_input.ts";
export { GIT_COMMIT_SCHEMA } from "./_git_commit_input.ts";
export type { JsonSchemaProperty, ObjectJsonSchema } from "./_json_schema.ts";
export { MODE_MEANINGS } from "./_modes.ts";
export {
  TOOL_SCHEMA_TARGETS,
  type ToolSchemaResult,
  type ToolStandardSchema,
  toolStandardSchema,
} from "./_standard_schema.ts";
export {
  DEFAULT_INPUT_WAIT_MS,
  DEFAULT_TASK_WAIT_MS,
  INPUT_QUIET_MS,
  MAX_INPUT_WAIT_MS,
  TASK_INPUT_SCHEMA,
  TASK_KILL_SCHEMA,
  TASK_LIST_SCHEMA,
  TASK_OUTPUT_CHECKS,
  TASK_OUTPUT_SCHEMA,
} from "./_task_inputs.ts";
export {
  isPlainObject,
  NON_BLANK_PATTERN,
  type ValidateOptions,
  validateToolArguments,
} from "./_validate.ts";
