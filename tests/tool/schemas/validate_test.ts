import { describe, it, test } from "node:test";
import assert from "node:assert/strict";
import type { ObjectJsonSchema } from "../../../tool/mod.ts";
import { widerSandboxModes } from "../../../seam/mod.ts";
import {
  bashInputSchema,
  TASK_OUTPUT_SCHEMA,
  validateToolArguments,
} from "../../../tool/schemas/mod.ts";

const bash = bashInputSchema({
  escalationModes: widerSandboxModes("read-only"),
  runInBackground: true,
});
const ok = { command: "ls", description: "List files" };

function message(schema: ObjectJsonSchema, args: unknown, tool = "bash"): string {
  const check = validateToolArguments(tool, schema, args);
  assert.equal(check.ok, false, "expected the arguments to be rejected");
  return check.ok ? "" : check.message;
}

describe("validateToolArguments", () => {
  it("accepts valid arguments and drops undefined fields", () => {
    assert.deepEqual(
      validateToolArguments("bash", bash, { ...ok, timeout_ms: 5, workdir: undefined }),
      { ok: true, value: { ...ok, timeout_ms: 5 } },
    );
  });

  it("accepts JSON text, and a blank text as an empty object", () => {
    assert.deepEqual(validateToolArguments("bash", bash, JSON.stringify(ok)), {
      ok: true,
      value: ok,
    });
    assert.deepEqual(
      validateToolArguments("task_list", { ...TASK_OUTPUT_SCHEMA, required: [] }, " "),
      {
        ok: true,
        value: {},
      },
    );
  });

  describe("schema-invalid arguments", () => {
    const table: [string, unknown, string][] = [
      [
        "not an object",
        "[1]",
        "Invalid arguments for bash: the arguments must be a JSON object; got an array",
      ],
      ["a number", 5, "Invalid arguments for bash: the arguments must be a JSON object; got 5"],
      ["null", null, "Invalid arguments for bash: the arguments must be a JSON object; got null"],
      [
        "a class instance",
        new Date(0),
        "Invalid arguments for bash: the arguments must be a JSON object; got an object",
      ],
      [
        "missing command",
        { description: "x" },
        "Invalid arguments for bash: command is required (a non-blank string)",
      ],
      [
        "an unknown field",
        { ...ok, cwd: "/tmp" },
        'Invalid arguments for bash: unknown field "cwd" (accepted fields: command, description, timeout_ms, workdir, run_in_background, sandbox_permissions, justification)',
      ],
      [
        "a wrong type",
        { ...ok, run_in_background: "yes" },
        'Invalid arguments for bash: run_in_background must be true or false; got "yes"',
      ],
      [
        "an array for a string",
        { ...ok, command: ["ls"] },
        "Invalid arguments for bash: command must be a non-blank string; got an array",
      ],
    ];
    for (const [name, args, expected] of table) {
      test(name, () => assert.equal(message(bash, args), expected));
    }
  });

  describe("value-invalid arguments", () => {
    const table: [string, Record<string, unknown>, string][] = [
      ["negative timeout", { timeout_ms: -5 }, "timeout_ms must be a positive integer; got -5"],
      ["zero timeout", { timeout_ms: 0 }, "timeout_ms must be a positive integer; got 0"],
      ["fractional timeout", { timeout_ms: 1.5 }, "timeout_ms must be a positive integer; got 1.5"],
      ["NaN timeout", { timeout_ms: NaN }, "timeout_ms must be a positive integer; got NaN"],
      [
        "Infinity timeout",
        { timeout_ms: Infinity },
        "timeout_ms must be a positive integer; got Infinity",
      ],
      ["string timeout", { timeout_ms: "100" }, 'timeout_ms must be a positive integer; got "100"'],
      ["bigint timeout", { timeout_ms: 5n }, "timeout_ms must be a positive integer; got 5n"],
      [
        "null optional",
        { timeout_ms: null },
        "timeout_ms must be a positive integer; got null; omit the field to use its default",
      ],
      ["blank command", { command: "  \n" }, 'command must be a non-blank string; got "  \\n"'],
      ["empty description", { description: "" }, 'description must be a non-blank string; got ""'],
      [
        "a mode outside the enum",
        { sandbox_permissions: "root", justification: "x" },
        'sandbox_permissions must be one of "workspace-write", "danger-full-access"; got "root"',
      ],
    ];
    for (const [name, patch, expected] of table) {
      test(name, () => {
        assert.equal(message(bash, { ...ok, ...patch }), `Invalid arguments for bash: ${expected}`);
      });
    }
  });

  it("reports every problem, one line each", () => {
    assert.equal(
      message(bash, { command: "", timeout_ms: -1, shell: "zsh" }),
      [
        "Invalid arguments for bash:",
        '- command must be a non-blank string; got ""',
        "- description is required (a non-blank string)",
        "- timeout_ms must be a positive integer; got -1",
        '- unknown field "shell" (accepted fields: command, description, timeout_ms, workdir, run_in_background, sandbox_permissions, justification)',
      ].join("\n"),
    );
  });

  it("says what is wrong with malformed JSON text", () => {
    assert.match(
      message(bash, "{command: ls}"),
      /^Invalid arguments for bash: the arguments are not valid JSON \(.+\); send a JSON object$/,
    );
  });

  it("shortens long string values in messages", () => {
    const text = message(bash, { ...ok, timeout_ms: "x".repeat(500) });
    assert.ok(text.length < 200, text);
    assert.match(text, /got "x{77}\.\.\."$/);
  });

  it("names the bound an out-of-range integer crossed, and every bound for a wrong type", () => {
    const table: [unknown, string][] = [
      [700_000, "timeout_ms must be at most 600000; got 700000"],
      [-5, "timeout_ms must be a positive integer; got -5"],
      [1.5, "timeout_ms must be an integer from 1 to 600000; got 1.5"],
      ["9", 'timeout_ms must be an integer from 1 to 600000; got "9"'],
    ];
    for (const [timeout_ms, expected] of table) {
      assert.equal(
        message(TASK_OUTPUT_SCHEMA, { task_id: "bash-1", wait: true, timeout_ms }, "task_output"),
        `Invalid arguments for task_output: ${expected}`,
      );
    }
  });

  it("describes every kind of bound a schema may set", () => {
    const schema: ObjectJsonSchema = {
      type: "object",
      properties: {
        code: { type: "string", minLength: 3 },
        id: { type: "string", pattern: "^bash-\\d+$" },
        any: { type: "integer" },
        low: { type: "integer", minimum: 0 },
        high: { type: "integer", maximum: 9 },
      },
      required: [],
      additionalProperties: false,
    };
    const table: [Record<string, unknown>, string][] = [
      [{ code: "ab" }, 'code must be a string of at least 3 character(s); got "ab"'],
      [{ code: "🎉🎉" }, 'code must be a string of at least 3 character(s); got "🎉🎉"'],
      [{ id: "task-1" }, 'id must be a string matching /^bash-\\d+$/; got "task-1"'],
      [{ any: 0.5 }, "any must be an integer; got 0.5"],
      [{ low: -1 }, "low must be at least 0; got -1"],
      [{ low: "0" }, 'low must be an integer of at least 0; got "0"'],
      [{ high: 10 }, "high must be at most 9; got 10"],
      [{ high: 0.5 }, "high must be an integer of at most 9; got 0.5"],
    ];
    for (const [args, expected] of table) {
      assert.equal(message(schema, args), `Invalid arguments for bash: ${expected}`);
    }
    assert.deepEqual(
      validateToolArguments("bash", schema, { code: "🎉🎉🎉", id: "bash-12", any: -3, low: 0 }),
      { ok: true, value: { code: "🎉🎉🎉", id: "bash-12", any: -3, low: 0 } },
    );
  });

  it("adds hints to named unknown fields and runs refine only on valid input", () => {
    const calls: unknown[] = [];
    const check = validateToolArguments("bash", bash, { ...ok, env: { A: "1" } }, {
      hints: { env: "set variables inside the command" },
      refine: (value) => {
        calls.push(value);
        return [];
      },
    });
    assert.deepEqual(check, {
      ok: false,
      message:
        'Invalid arguments for bash: unknown field "env"; set variables inside the command (accepted fields: command, description, timeout_ms, workdir, run_in_background, sandbox_permissions, justification)',
    });
    assert.deepEqual(calls, []);
    const refined = validateToolArguments("bash", bash, ok, { refine: () => ["a and b clash"] });
    assert.deepEqual(refined, { ok: false, message: "Invalid arguments for bash: a and b clash" });
  });

  it("ignores inherited properties and checks own ones only", () => {
    const args = Object.assign(Object.create(null) as Record<string, unknown>, ok);
    assert.equal(validateToolArguments("bash", bash, args).ok, true);
  });
});
