import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { taskOwner, TaskRegistry } from "../../tasks/mod.ts";
import {
  type AgentTool,
  createBashTools,
  toAnthropicTool,
  toMcpTool,
  toOpenAIResponsesTool,
  toOpenAITool,
} from "../../tool/mod.ts";
import { FakeSandboxExecutor } from "./_fakes.ts";

// The documented fields of each format, as of this writing:
// - OpenAI Chat Completions, a `tools` entry: { type: "function", function: { name, description?,
//   parameters?, strict? } }; name matches ^[a-zA-Z0-9_-]{1,64}$; parameters is a JSON Schema object.
// - Anthropic Messages API, a client tool: { name, description?, input_schema, ... }; name matches
//   ^[a-zA-Z0-9_-]{1,128}$; input_schema is a JSON Schema object.
// - MCP, a Tool in a tools/list result: { name, title?, description?, inputSchema: { $schema?,
//   type: "object", properties?, required? }, ... }; names SHOULD be 1-128 of [A-Za-z0-9_.-].
const OPENAI_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ANTHROPIC_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
const MCP_NAME = /^[a-zA-Z0-9_.-]{1,128}$/;

function assertKeys(value: object, allowed: string[], required: string[], what: string): void {
  for (const key of Object.keys(value)) assert.ok(allowed.includes(key), `${what}: unknown ${key}`);
  for (const key of required) assert.ok(key in value, `${what}: missing ${key}`);
}

/** A JSON Schema object for tool input: type "object", object properties, known required names. */
function assertObjectSchema(schema: unknown, what: string): void {
  assert.equal(typeof schema, "object", what);
  const { type, properties, required } = schema as Record<string, unknown>;
  assert.equal(type, "object", `${what}.type`);
  assert.equal(typeof properties, "object", `${what}.properties`);
  for (const [name, property] of Object.entries(properties as object)) {
    assert.equal(typeof property, "object", `${what}.properties.${name}`);
    assert.equal(typeof (property as { type?: unknown }).type, "string", `${what}.${name}.type`);
  }
  if (required !== undefined) {
    assert.ok(Array.isArray(required), `${what}.required`);
    for (const name of required) assert.ok(name in (properties as object), `${what}: ${name}`);
  }
  assert.deepEqual(JSON.parse(JSON.stringify(schema)), schema, `${what} is plain JSON`);
}

function allTools(): AgentTool[] {
  const tasks = new TaskRegistry();
  const owner = taskOwner("s");
  const plain = createBashTools({ executor: new FakeSandboxExecutor(null), tasks, owner });
  const sandboxed = createBashTools({
    executor: new FakeSandboxExecutor("read-only"),
    tasks,
    owner,
    approve: () => Promise.resolve("reject"),
  });
  return [...plain.tools, sandboxed.bash];
}

describe("toOpenAITool (Chat Completions function tool)", () => {
  it("has only the documented fields, a valid name and an object schema", () => {
    for (const tool of allTools()) {
      const openai = toOpenAITool(tool);
      assertKeys(openai, ["type", "function"], ["type", "function"], tool.name);
      assert.equal(openai.type, "function");
      assertKeys(
        openai.function,
        ["name", "description", "parameters", "strict"],
        ["name", "description", "parameters"],
        tool.name,
      );
      assert.match(openai.function.name, OPENAI_NAME);
      assert.equal(openai.function.name, tool.name);
      assert.equal(openai.function.description, tool.description);
      assert.equal("strict" in openai.function, false, "optional fields rule out strict mode");
      assertObjectSchema(openai.function.parameters, `${tool.name}.parameters`);
      assert.deepEqual(openai.function.parameters, tool.inputSchema);
    }
  });
});

describe("toOpenAIResponsesTool (Responses API function tool)", () => {
  it("is flat, has only the documented fields, strict false and an object schema", () => {
    for (const tool of allTools()) {
      const openai = toOpenAIResponsesTool(tool);
      assertKeys(
        openai,
        ["type", "name", "description", "parameters", "strict"],
        ["type", "name", "parameters", "strict"],
        tool.name,
      );
      assert.equal(openai.type, "function");
      assert.match(openai.name, OPENAI_NAME);
      assert.equal(openai.name, tool.name);
      assert.equal(openai.description, tool.description);
      assert.equal(openai.strict, false, "optional fields rule out strict mode");
      assertObjectSchema(openai.parameters, `${tool.name}.parameters`);
      assert.deepEqual(openai.parameters, tool.inputSchema);
    }
  });
});

describe("toAnthropicTool (Messages API client tool)", () => {
  it("has only the documented fields, a valid name and an object schema", () => {
    for (const tool of allTools()) {
      const anthropic = toAnthropicTool(tool);
      assertKeys(
        anthropic,
        ["name", "description", "input_schema"],
        ["name", "description", "input_schema"],
        tool.name,
      );
      assert.match(anthropic.name, ANTHROPIC_NAME);
      assert.equal(anthropic.description, tool.description);
      assertObjectSchema(anthropic.input_schema, `${tool.name}.input_schema`);
      assert.deepEqual(anthropic.input_schema, tool.inputSchema);
    }
  });
});

describe("toMcpTool (tools/list entry)", () => {
  it("has only the documented fields, a valid name and an object inputSchema", () => {
    for (const tool of allTools()) {
      const mcp = toMcpTool(tool);
      assertKeys(mcp, ["name", "description", "inputSchema"], ["name", "inputSchema"], tool.name);
      assert.match(mcp.name, MCP_NAME);
      assert.equal(mcp.description, tool.description);
      assertObjectSchema(mcp.inputSchema, `${tool.name}.inputSchema`);
      assert.deepEqual(mcp.inputSchema, tool.inputSchema);
    }
  });
});

describe("all exporters", () => {
  it("copy the schema, so changing an export leaves the tool alone", () => {
    const [tool] = allTools();
    assert.ok(tool);
    const before = structuredClone(tool.inputSchema);
    toOpenAITool(tool).function.parameters.properties.extra = { type: "string" };
    toOpenAIResponsesTool(tool).parameters.properties.extra = { type: "string" };
    toAnthropicTool(tool).input_schema.required?.push("extra");
    delete toMcpTool(tool).inputSchema.properties.command;
    assert.deepEqual(tool.inputSchema, before);
  });
});
