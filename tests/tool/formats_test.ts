import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  bashInputSchema,
  type BashTool,
  TASK_LIST_SCHEMA,
  toAnthropicTool,
  toMcpTool,
  toOpenAITool,
} from "../../tool/mod.ts";

// Both the OpenAI function name and the Anthropic tool name must match this;
// MCP's tool-name guidance (SEP-986) allows a superset of it.
const PORTABLE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const tool: BashTool = {
  name: "bash",
  description: "Run a command.",
  inputSchema: bashInputSchema({ sandboxMode: "read-only", runInBackground: true }),
  execute: () => Promise.resolve({ text: "", isError: false }),
};

function assertJsonSchemaObject(schema: unknown): void {
  assert.equal(typeof schema, "object");
  assert.equal((schema as { type?: unknown }).type, "object");
  assert.deepEqual(JSON.parse(JSON.stringify(schema)), schema);
}

describe("toOpenAITool (Chat Completions function tool)", () => {
  it("has exactly type and function { name, description, parameters }", () => {
    const openai = toOpenAITool(tool);
    assert.deepEqual(Object.keys(openai).sort(), ["function", "type"]);
    assert.equal(openai.type, "function");
    assert.deepEqual(Object.keys(openai.function).sort(), ["description", "name", "parameters"]);
    assert.match(openai.function.name, PORTABLE_NAME);
    assert.equal(openai.function.description, tool.description);
    assertJsonSchemaObject(openai.function.parameters);
    assert.deepEqual(openai.function.parameters, tool.inputSchema);
  });
});

describe("toAnthropicTool (Messages API client tool)", () => {
  it("has exactly name, description and input_schema", () => {
    const anthropic = toAnthropicTool(tool);
    assert.deepEqual(Object.keys(anthropic).sort(), ["description", "input_schema", "name"]);
    assert.match(anthropic.name, PORTABLE_NAME);
    assertJsonSchemaObject(anthropic.input_schema);
    assert.deepEqual(anthropic.input_schema, tool.inputSchema);
  });
});

describe("toMcpTool (tools/list entry)", () => {
  it("has exactly name, description and an object inputSchema", () => {
    const mcp = toMcpTool({ ...tool, name: "task_list", inputSchema: TASK_LIST_SCHEMA });
    assert.deepEqual(Object.keys(mcp).sort(), ["description", "inputSchema", "name"]);
    assert.match(mcp.name, PORTABLE_NAME);
    assertJsonSchemaObject(mcp.inputSchema);
    assert.deepEqual(mcp.inputSchema, {
      type: "object",
      properties: {},
      additionalProperties: false,
    });
  });
});

describe("all exporters", () => {
  it("copy the schema, so changing an export leaves the tool alone", () => {
    const before = structuredClone(tool.inputSchema);
    toOpenAITool(tool).function.parameters.properties.extra = { type: "string" };
    toAnthropicTool(tool).input_schema.required?.push("extra");
    delete toMcpTool(tool).inputSchema.properties.command;
    assert.deepEqual(tool.inputSchema, before);
  });
});
