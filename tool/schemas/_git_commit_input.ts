import type { ObjectJsonSchema } from "./_json_schema.ts";
import { NON_BLANK_PATTERN } from "./_validate.ts";

/**
 * The `git_commit` tool's input schema: `paths` and `message` are required,
 * `workdir` is optional.
 *
 * @example
 * ```ts
 * import { GIT_COMMIT_SCHEMA } from "./_git_commit_input.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(GIT_COMMIT_SCHEMA.required, ["paths", "message"]);
 * ```
 */
export const GIT_COMMIT_SCHEMA: ObjectJsonSchema = {
  type: "object",
  properties: {
    paths: {
      type: "array",
      items: { type: "string", pattern: NON_BLANK_PATTERN },
      minItems: 1,
      description:
        "The files (or folders) to commit as they are now, added, changed or deleted; relative to workdir.",
    },
    message: {
      type: "string",
      pattern: NON_BLANK_PATTERN,
      description: "The commit message: a summary line, then a blank line and details if needed.",
    },
    workdir: {
      type: "string",
      description:
        "Where relative paths start and the repository is found from (default: the session's working directory).",
    },
  },
  required: ["paths", "message"],
  additionalProperties: false,
};
