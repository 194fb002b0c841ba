import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ObjectJsonSchema } from "../../../tool/mod.ts";
import { widerSandboxModes } from "../../../seam/mod.ts";
import {
  BASH_CHECKS,
  bashInputSchema,
  TASK_INPUT_SCHEMA,
  TASK_KILL_SCHEMA,
  TASK_LIST_SCHEMA,
  TASK_OUTPUT_SCHEMA,
  validateToolArguments,
} from "../../../tool/schemas/mod.ts";
import { MAX_TERMINAL_CELLS } from "../../../seam/mod.ts";

function assertClosedObject(schema: ObjectJsonSchema): void {
  assert.equal(schema.type, "object");
  assert.equal(schema.additionalProperties, false);
  // `required` is always stated, `[]` for none: the OpenAI Agents SDK's strict mode expects it.
  assert.ok(Array.isArray(schema.required), "required is stated");
  for (const name of schema.required) assert.ok(name in schema.properties, name);
  // A plain JSON value: it survives a JSON round trip unchanged.
  assert.deepEqual(JSON.parse(JSON.stringify(schema)), schema);
}

describe("bashInputSchema", () => {
  it("has the base fields, required command and description, and nothing else", () => {
    const schema = bashInputSchema({ escalationModes: [], runInBackground: false });
    assertClosedObject(schema);
    assert.deepEqual(Object.keys(schema.properties), [
      "command",
      "description",
      "timeout_ms",
      "workdir",
    ]);
    assert.deepEqual(schema.required, ["command", "description"]);
    assert.equal(schema.properties.timeout_ms?.type, "integer");
    assert.equal(schema.properties.timeout_ms?.minimum, 1);
  });

  it("names the executor's time limits for timeout_ms, and caps it at the greatest", () => {
    const limited = bashInputSchema({
      escalationModes: [],
      runInBackground: true,
      timeouts: { defaultMs: 120_000, maxMs: 600_000 },
    });
    assert.equal(limited.properties.timeout_ms?.maximum, 600_000);
    assert.match(
      limited.properties.timeout_ms?.description ?? "",
      /\. Defaults to 120000\. At most 600000\. Not allowed with run_in_background, which suits longer work\.$/,
    );
    const uncapped = bashInputSchema({
      escalationModes: [],
      runInBackground: false,
      timeouts: { defaultMs: 5000, maxMs: undefined },
    });
    assert.equal("maximum" in (uncapped.properties.timeout_ms ?? {}), false);
    assert.match(uncapped.properties.timeout_ms?.description ?? "", /\. Defaults to 5000\.$/);
    const unknown = bashInputSchema({ escalationModes: [], runInBackground: false });
    assert.equal("maximum" in (unknown.properties.timeout_ms ?? {}), false);
    assert.match(
      unknown.properties.timeout_ms?.description ?? "",
      /\. The executor sets the default and may cap it\.$/,
    );
  });

  it("offers run_in_background only when enabled", () => {
    const schema = bashInputSchema({ escalationModes: [], runInBackground: true });
    assert.equal(schema.properties.run_in_background?.type, "boolean");
  });

  it("never exposes env, stdin or stdoutMaxBytes, whatever the options", () => {
    for (const escalationModes of [[], widerSandboxModes("read-only")]) {
      for (const runInBackground of [true, false]) {
        const schema = bashInputSchema({ escalationModes, runInBackground });
        assertClosedObject(schema);
        for (const field of ["env", "stdin", "stdoutMaxBytes", "managedEnv", "signal"]) {
          assert.equal(field in schema.properties, false, field);
        }
      }
    }
  });

  it("has no escalation fields when no mode can be asked for", () => {
    const schema = bashInputSchema({ escalationModes: [], runInBackground: true });
    assert.equal("sandbox_permissions" in schema.properties, false);
    assert.equal("justification" in schema.properties, false);
  });

  it("offers exactly the escalation modes", () => {
    const readOnly = bashInputSchema({
      escalationModes: widerSandboxModes("read-only"),
      runInBackground: true,
    });
    assert.deepEqual(readOnly.properties.sandbox_permissions?.enum, [
      "workspace-write",
      "danger-full-access",
    ]);
    assert.equal(readOnly.properties.justification?.type, "string");
    assert.deepEqual(readOnly.required, ["command", "description"]);
    const workspace = bashInputSchema({
      escalationModes: widerSandboxModes("workspace-write"),
      runInBackground: true,
    });
    assert.deepEqual(workspace.properties.sandbox_permissions?.enum, ["danger-full-access"]);
    assert.match(workspace.properties.sandbox_permissions?.description ?? "", /danger-full-access/);
    assert.doesNotMatch(
      workspace.properties.sandbox_permissions?.description ?? "",
      /"workspace-write"/,
    );
  });

  it("has no escalation fields when the default is already the widest mode", () => {
    const schema = bashInputSchema({
      escalationModes: widerSandboxModes("danger-full-access"),
      runInBackground: true,
    });
    assert.equal("sandbox_permissions" in schema.properties, false);
    assert.equal("justification" in schema.properties, false);
  });

  it("offers a terminal's rows and cols with terminal, bounded by the seam, and only with it", () => {
    const schema = bashInputSchema({ escalationModes: [], runInBackground: true, terminal: true });
    assert.deepEqual(Object.keys(schema.properties).slice(-3), ["terminal", "rows", "cols"]);
    for (const name of ["rows", "cols"]) {
      const property = schema.properties[name];
      assert.equal(property?.type, "integer");
      assert.equal(property?.minimum, 1);
      assert.equal(property?.maximum, MAX_TERMINAL_CELLS);
    }
    const base = { command: "top", description: "Watch" };
    const check = (args: Record<string, unknown>) =>
      validateToolArguments("bash", schema, { ...base, ...args }, BASH_CHECKS);
    assert.equal(check({ terminal: true, rows: 50, cols: 200 }).ok, true);
    assert.deepEqual(check({ terminal: true, rows: 1001 }), {
      ok: false,
      message: "Invalid arguments for bash: rows must be at most 1000; got 1001",
    });
    assert.deepEqual(check({ cols: 120 }), {
      ok: false,
      message:
        "Invalid arguments for bash: rows and cols are the size of a terminal: add terminal: true, or drop them",
    });
    const plain = bashInputSchema({ escalationModes: [], runInBackground: true });
    assert.equal("rows" in plain.properties, false);
  });

  it("describes every field for the model", () => {
    const schema = bashInputSchema({
      escalationModes: widerSandboxModes("read-only"),
      runInBackground: true,
      terminal: true,
    });
    for (const [name, property] of Object.entries(schema.properties)) {
      assert.ok((property.description ?? "").length > 20, name);
    }
  });
});

describe("task tool schemas", () => {
  it("are closed objects with the documented fields", () => {
    assertClosedObject(TASK_OUTPUT_SCHEMA);
    assertClosedObject(TASK_LIST_SCHEMA);
    assertClosedObject(TASK_KILL_SCHEMA);
    assert.deepEqual(Object.keys(TASK_OUTPUT_SCHEMA.properties), ["task_id", "wait", "timeout_ms"]);
    assert.deepEqual(TASK_OUTPUT_SCHEMA.required, ["task_id"]);
    assert.deepEqual(Object.keys(TASK_LIST_SCHEMA.properties), []);
    assert.deepEqual(Object.keys(TASK_KILL_SCHEMA.properties), ["task_id", "reason"]);
    assert.deepEqual(TASK_KILL_SCHEMA.required, ["task_id"]);
    assertClosedObject(TASK_INPUT_SCHEMA);
    assert.deepEqual(Object.keys(TASK_INPUT_SCHEMA.properties), [
      "task_id",
      "input",
      "wait_ms",
      "rows",
      "cols",
    ]);
    assert.deepEqual(TASK_INPUT_SCHEMA.required, ["task_id", "input"]);
  });

  it("task_input takes a new size within the seam's bound", () => {
    const check = (args: Record<string, unknown>) =>
      validateToolArguments("task_input", TASK_INPUT_SCHEMA, {
        task_id: "bash-1",
        input: "",
        ...args,
      });
    assert.equal(check({ rows: 40, cols: 120 }).ok, true);
    assert.equal(check({ cols: MAX_TERMINAL_CELLS }).ok, true);
    assert.deepEqual(check({ cols: 0, rows: 2.5 }), {
      ok: false,
      message:
        "Invalid arguments for task_input:\n- rows must be an integer from 1 to 1000; got 2.5\n- cols must be a positive integer; got 0",
    });
    assert.match(TASK_INPUT_SCHEMA.properties.rows?.description ?? "", /Resize the terminal/);
    assert.match(TASK_INPUT_SCHEMA.properties.wait_ms?.description ?? "", /went quiet for 50 ms/);
  });
});
