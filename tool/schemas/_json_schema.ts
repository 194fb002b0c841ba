// Type aliases, not interfaces: an interface has no implicit index signature,
// so it is not assignable to the SDKs' schema types (`{ [key: string]: unknown }`).

/**
 * The JSON Schema subset the tool schemas use for one property: a string
 * (optionally an enum, a minimum length or a pattern), an integer with bounds,
 * a boolean, or a list of strings (with a least number of items).
 *
 * @example
 * ```ts
 * import type { JsonSchemaProperty } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const timeout: JsonSchemaProperty = { type: "integer", minimum: 1, description: "Milliseconds." };
 * assert.equal(timeout.minimum, 1);
 * ```
 */
export type JsonSchemaProperty = {
  /** The JSON type of the value. */
  type: "string" | "integer" | "boolean" | "array";
  /** What the value means, for the model. */
  description?: string;
  /** The allowed values of a string. */
  enum?: string[];
  /** The least length of a string. */
  minLength?: number;
  /** A regular expression a string must match somewhere (JSON Schema semantics). */
  pattern?: string;
  /** The least value of an integer. */
  minimum?: number;
  /** The greatest value of an integer. */
  maximum?: number;
  /** The items of a list: strings, optionally with a pattern. */
  items?: { type: "string"; pattern?: string };
  /** The least number of items of a list. */
  minItems?: number;
};

/**
 * A tool's input schema: a JSON Schema object with named properties and no
 * others. A plain JSON value, usable as an OpenAI `parameters`, an Anthropic
 * `input_schema` and an MCP `inputSchema`.
 *
 * @example
 * ```ts
 * import type { ObjectJsonSchema } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const schema: ObjectJsonSchema = {
 *   type: "object",
 *   properties: { task_id: { type: "string", minLength: 1 } },
 *   required: ["task_id"],
 *   additionalProperties: false,
 * };
 * assert.deepEqual(JSON.parse(JSON.stringify(schema)), schema); // plain JSON
 * ```
 */
export type ObjectJsonSchema = {
  /** Always `"object"`. */
  type: "object";
  /** The accepted fields. */
  properties: Record<string, JsonSchemaProperty>;
  /** The fields that must be present: always stated, `[]` for none (the OpenAI Agents SDK's strict mode and some providers expect it). */
  required: string[];
  /** Always `false`: unknown fields are rejected. */
  additionalProperties: false;
};
