import { messageOf } from "../../seam/message.ts";
import { describeValue } from "../../seam/checks.ts";
import type { JsonSchemaProperty, ObjectJsonSchema } from "./_json_schema.ts";

/**
 * The outcome of {@linkcode validateToolArguments}: the checked arguments
 * (fields whose value is `undefined` dropped), or a message for the model.
 *
 * @example
 * ```ts
 * import type { ArgumentCheck } from "./_validate.ts";
 * import assert from "node:assert/strict";
 *
 * const report = (check: ArgumentCheck): string =>
 *   check.ok ? JSON.stringify(check.value) : check.message;
 * const message = "Invalid arguments for bash: command is required";
 * assert.equal(report({ ok: false, message }), message);
 * ```
 */
export type ArgumentCheck =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; message: string };

/**
 * Options of {@linkcode validateToolArguments}.
 *
 * @example
 * ```ts
 * import type { ValidateOptions } from "./_validate.ts";
 * import assert from "node:assert/strict";
 *
 * const options: ValidateOptions = {
 *   hints: { env: "set variables inside the command instead" },
 *   refine: (value) => (value.a !== undefined && value.b !== undefined ? ["give a or b, not both"] : []),
 * };
 * assert.deepEqual(options.refine?.({ a: 1, b: 2 }), ["give a or b, not both"]);
 * ```
 */
export interface ValidateOptions {
  /** A sentence added to the report of an unknown field, by field name. */
  hints?: Readonly<Record<string, string>>;
  /** Checks across fields, run when every field passed; returns problem lines. */
  refine?: (value: Record<string, unknown>) => string[];
}

/**
 * Checks tool arguments against an {@linkcode ObjectJsonSchema}. `args` may be
 * the parsed object or its JSON text (a blank text is `{}`). Unknown fields,
 * missing required fields, wrong types, values out of range and non-JSON
 * numbers (`NaN`, `Infinity`) are all reported, one line each, naming the
 * field, what it must be and what was sent; see {@linkcode ValidateOptions}
 * for hints and checks across fields.
 *
 * @example
 * ```ts
 * import { validateToolArguments } from "./_validate.ts";
 * import assert from "node:assert/strict";
 *
 * const schema = {
 *   type: "object" as const,
 *   properties: { timeout_ms: { type: "integer" as const, minimum: 1 } },
 *   required: [],
 *   additionalProperties: false as const,
 * };
 * const check = validateToolArguments("bash", schema, { timeout_ms: -5 });
 * assert.deepEqual(check, {
 *   ok: false,
 *   message: "Invalid arguments for bash: timeout_ms must be a positive integer; got -5",
 * });
 * assert.deepEqual(validateToolArguments("bash", schema, '{"timeout_ms": 10}'), {
 *   ok: true,
 *   value: { timeout_ms: 10 },
 * });
 * ```
 */
export function validateToolArguments(
  toolName: string,
  schema: ObjectJsonSchema,
  args: unknown,
  options: ValidateOptions = {},
): ArgumentCheck {
  const { hints = {}, refine } = options;
  const fail = (problems: string[]): ArgumentCheck => ({
    ok: false,
    message: problems.length === 1
      ? `Invalid arguments for ${toolName}: ${problems[0]}`
      : `Invalid arguments for ${toolName}:\n${problems.map((p) => `- ${p}`).join("\n")}`,
  });
  let input = args;
  if (typeof input === "string") {
    if (input.trim() === "") {
      input = {};
    } else {
      try {
        input = JSON.parse(input);
      } catch (error) {
        return fail([
          `the arguments are not valid JSON (${messageOf(error)}); send a JSON object`,
        ]);
      }
    }
  }
  if (!isPlainObject(input)) {
    return fail([`the arguments must be a JSON object; got ${describeValue(input)}`]);
  }
  const problems: string[] = [];
  const value: Record<string, unknown> = {};
  const required = new Set(schema.required ?? []);
  for (const [name, property] of Object.entries(schema.properties)) {
    const field = input[name];
    if (field === undefined) {
      if (required.has(name)) problems.push(`${name} is required (${expectation(property)})`);
      continue;
    }
    const problem = checkProperty(name, property, field, required.has(name));
    if (problem) problems.push(problem);
    else value[name] = field;
  }
  const accepted = Object.keys(schema.properties);
  for (const name of Object.keys(input)) {
    if (Object.hasOwn(schema.properties, name) || input[name] === undefined) continue;
    const hint = Object.hasOwn(hints, name) ? `; ${hints[name]}` : "";
    problems.push(
      `unknown field ${JSON.stringify(name)}${hint} (accepted fields: ${
        accepted.length ? accepted.join(", ") : "none"
      })`,
    );
  }
  if (problems.length === 0 && refine) problems.push(...refine(value));
  return problems.length ? fail(problems) : { ok: true, value };
}

function checkProperty(
  name: string,
  property: JsonSchemaProperty,
  field: unknown,
  required: boolean,
): string | undefined {
  if (matches(property, field)) return undefined;
  let expected = expectation(property);
  if (property.type === "integer" && Number.isInteger(field)) {
    // An integer out of range: name the bound it crossed.
    const { minimum, maximum } = property;
    if (maximum !== undefined && (field as number) > maximum) expected = `at most ${maximum}`;
    else if (minimum === 1) expected = "a positive integer";
    else if (minimum !== undefined) expected = `at least ${minimum}`;
  }
  const omit = field === null && !required ? "; omit the field to use its default" : "";
  return `${name} must be ${expected}; got ${describeValue(field)}${omit}`;
}

function matches(property: JsonSchemaProperty, field: unknown): boolean {
  switch (property.type) {
    case "boolean":
      return typeof field === "boolean";
    case "integer":
      return typeof field === "number" && Number.isInteger(field) &&
        (property.minimum === undefined || field >= property.minimum) &&
        (property.maximum === undefined || field <= property.maximum);
    case "array":
      return Array.isArray(field) && field.length >= (property.minItems ?? 0) &&
        field.every((item) =>
          typeof item === "string" &&
          (property.items?.pattern === undefined ||
            new RegExp(property.items.pattern, "u").test(item))
        );
    case "string":
      return typeof field === "string" &&
        (property.enum === undefined || property.enum.includes(field)) &&
        (property.minLength === undefined || [...field].length >= property.minLength) &&
        (property.pattern === undefined || new RegExp(property.pattern, "u").test(field));
  }
}

/**
 * The JSON Schema `pattern` of a string with at least one non-whitespace
 * character; {@linkcode validateToolArguments} reports it as "a non-blank string".
 *
 * @example
 * ```ts
 * import { NON_BLANK_PATTERN } from "./_validate.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(new RegExp(NON_BLANK_PATTERN, "u").test("  "), false);
 * assert.equal(new RegExp(NON_BLANK_PATTERN, "u").test(" ls "), true);
 * ```
 */
export const NON_BLANK_PATTERN = "\\S";

function expectation(property: JsonSchemaProperty): string {
  const { minimum: min, maximum: max } = property;
  switch (property.type) {
    case "boolean":
      return "true or false";
    case "integer":
      if (min === 1 && max === undefined) return "a positive integer";
      if (min !== undefined && max !== undefined) return `an integer from ${min} to ${max}`;
      if (min !== undefined) return `an integer of at least ${min}`;
      if (max !== undefined) return `an integer of at most ${max}`;
      return "an integer";
    case "array":
      return property.items?.pattern === NON_BLANK_PATTERN
        ? `a list of non-blank strings${
          property.minItems ? ` (at least ${property.minItems})` : ""
        }`
        : `a list of strings${property.minItems ? ` (at least ${property.minItems})` : ""}`;
    case "string":
      if (property.enum) return `one of ${property.enum.map((e) => JSON.stringify(e)).join(", ")}`;
      if (property.pattern === NON_BLANK_PATTERN) return "a non-blank string";
      if (property.pattern !== undefined) return `a string matching /${property.pattern}/`;
      if (property.minLength) return `a string of at least ${property.minLength} character(s)`;
      return "a string";
  }
}

/** Whether `value` is a plain object (its prototype `Object.prototype` or none): named fields. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
