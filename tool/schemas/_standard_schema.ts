import type { ObjectJsonSchema } from "./_json_schema.ts";
import { describeValue } from "../../seam/checks.ts";
import { isPlainObject, type ValidateOptions, validateToolArguments } from "./_validate.ts";

// The shapes of Standard Schema v1 and Standard JSON Schema v1 (standardschema.dev,
// `@standard-schema/spec` 1.1.0), written out so the library needs no dependency:
// tests/tool/frameworks_test.ts holds them to the spec package's own types.

/**
 * The JSON Schema drafts a tool schema converts to: the two the AI SDK and
 * the OpenAI Agents SDK ask for (`draft-07`, `draft-2020-12`), and OpenAPI
 * 3.0. The tool schemas use only keywords that mean the same in all three.
 *
 * @example
 * ```ts
 * import { TOOL_SCHEMA_TARGETS } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(TOOL_SCHEMA_TARGETS, ["draft-2020-12", "draft-07", "openapi-3.0"]);
 * ```
 */
export const TOOL_SCHEMA_TARGETS: readonly string[] = ["draft-2020-12", "draft-07", "openapi-3.0"];

/**
 * What a Standard Schema `validate` returns: the checked arguments, or the
 * issues (one, whose message is the text the tool itself would answer with).
 *
 * @example
 * ```ts
 * import type { ToolSchemaResult } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const result: ToolSchemaResult = { issues: [{ message: "Invalid arguments for bash: command is required" }] };
 * assert.equal(result.issues?.length, 1);
 * ```
 */
export type ToolSchemaResult =
  | { readonly value: Record<string, unknown>; readonly issues?: undefined }
  | { readonly issues: readonly { readonly message: string }[] };

/**
 * A tool's input schema as a Standard Schema v1 that is also a Standard JSON
 * Schema v1: what the Vercel AI SDK (`inputSchema`) and the OpenAI Agents
 * SDK (`parameters`) take. `validate` is synchronous and runs the tool's own
 * argument check; `jsonSchema.input` and `.output` give the tool's JSON
 * Schema (a copy) for a target in {@linkcode TOOL_SCHEMA_TARGETS}, and throw
 * a `RangeError` for another.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import { createBashTools } from "@shellseam/bash/tool";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor();
 * await using tasks = new TaskRegistry();
 * const { bash } = createBashTools({ executor, tasks, owner: taskOwner("s") });
 * const standard = bash.standardSchema["~standard"];
 * assert.deepEqual([standard.version, standard.vendor], [1, "shellseam"]);
 * assert.deepEqual(standard.validate({ command: "ls", description: "List files" }), {
 *   value: { command: "ls", description: "List files" },
 * });
 * assert.match(standard.validate({ command: "ls" }).issues?.[0]?.message ?? "", /description/);
 * assert.deepEqual(standard.jsonSchema.input({ target: "draft-07" }), bash.inputSchema);
 * ```
 */
export type ToolStandardSchema = {
  /** The Standard Schema and Standard JSON Schema properties. */
  readonly "~standard": {
    /** Always 1. */
    readonly version: 1;
    /** Always `"shellseam"`. */
    readonly vendor: string;
    /** Checks a value as the tool checks its arguments; never returns a promise. */
    readonly validate: (value: unknown) => ToolSchemaResult;
    /** The tool's JSON Schema, for the arguments (`input`) and the checked value (`output`). */
    readonly jsonSchema: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
      readonly output: (options: { readonly target: string }) => Record<string, unknown>;
    };
    /** Type-level only, as the spec has it: the arguments are an object of named fields. */
    readonly types?: {
      readonly input: Record<string, unknown>;
      readonly output: Record<string, unknown>;
    } | undefined;
  };
};

/**
 * The Standard Schema of the tool `toolName` whose input schema is `schema`:
 * `validate` runs {@linkcode validateToolArguments} with `options`, the
 * check the tool's `execute` runs, so both answer alike. A value that is not
 * an object (a JSON text included, which `execute` would parse) is an issue.
 *
 * @example
 * ```ts
 * import { toolStandardSchema } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const standard = toolStandardSchema("echo", {
 *   type: "object",
 *   properties: { text: { type: "string" } },
 *   required: ["text"],
 *   additionalProperties: false,
 * });
 * assert.deepEqual(standard["~standard"].validate({ text: "hi" }), { value: { text: "hi" } });
 * assert.deepEqual(standard["~standard"].validate('{"text": "hi"}'), {
 *   issues: [{ message: 'Invalid arguments for echo: expected an object of named fields; got "{\\"text\\": \\"hi\\"}"' }],
 * });
 * assert.throws(() => standard["~standard"].jsonSchema.input({ target: "draft-04" }), RangeError);
 * ```
 */
export function toolStandardSchema(
  toolName: string,
  schema: ObjectJsonSchema,
  options: ValidateOptions = {},
): ToolStandardSchema {
  const convert = ({ target }: { readonly target: string }): Record<string, unknown> => {
    if (!TOOL_SCHEMA_TARGETS.includes(target)) {
      throw new RangeError(
        `The tool schemas convert to ${
          TOOL_SCHEMA_TARGETS.map((known) => `"${known}"`).join(", ")
        }; got target ${JSON.stringify(target)}`,
      );
    }
    return structuredClone(schema);
  };
  return {
    "~standard": {
      version: 1,
      vendor: "shellseam",
      validate: (value) => {
        if (!isPlainObject(value)) {
          const message =
            `Invalid arguments for ${toolName}: expected an object of named fields; got ${
              describeValue(value)
            }`;
          return { issues: [{ message }] };
        }
        const check = validateToolArguments(toolName, schema, value, options);
        return check.ok ? { value: check.value } : { issues: [{ message: check.message }] };
      },
      jsonSchema: { input: convert, output: convert },
    },
  };
}
