import type { ObjectJsonSchema } from "./schemas/mod.ts";
import type { AgentTool } from "./tool.ts";

// The format types are type aliases, not interfaces, so a value of them is
// assignable to the SDKs' own types, whose schema fields are index signatures
// (`{ [key: string]: unknown }`): tests/tool/sdk_types_test.ts checks each
// against the pinned `openai`, `@anthropic-ai/sdk` and MCP SDK packages.

/**
 * A function tool for the OpenAI Chat Completions API (`tools` array);
 * assignable to the `openai` package's `ChatCompletionTool`.
 *
 * @example
 * ```ts
 * import type { OpenAITool } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const tool: OpenAITool = {
 *   type: "function",
 *   function: {
 *     name: "task_list",
 *     description: "List tasks.",
 *     parameters: { type: "object", properties: {}, required: [], additionalProperties: false },
 *   },
 * };
 * assert.equal(JSON.parse(JSON.stringify(tool)).function.name, "task_list");
 * ```
 */
export type OpenAITool = {
  /** Always `"function"`. */
  type: "function";
  /** The function definition. */
  function: {
    /** The name the model calls. */
    name: string;
    /** What the function does. */
    description: string;
    /** The JSON Schema of the arguments. */
    parameters: ObjectJsonSchema;
  };
};

/**
 * A function tool for the OpenAI Responses API (`tools` array): flat, with
 * `strict` always given; assignable to the `openai` package's
 * `Responses.FunctionTool`.
 *
 * @example
 * ```ts
 * import type { OpenAIResponsesTool } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const tool: OpenAIResponsesTool = {
 *   type: "function",
 *   name: "task_list",
 *   description: "List tasks.",
 *   parameters: { type: "object", properties: {}, required: [], additionalProperties: false },
 *   strict: false,
 * };
 * assert.equal(JSON.parse(JSON.stringify(tool)).strict, false);
 * ```
 */
export type OpenAIResponsesTool = {
  /** Always `"function"`. */
  type: "function";
  /** The name the model calls. */
  name: string;
  /** What the function does. */
  description: string;
  /** The JSON Schema of the arguments. */
  parameters: ObjectJsonSchema;
  /** Always `false`: strict mode allows no optional fields, and the tools have some. */
  strict: false;
};

/**
 * A client tool for the Anthropic Messages API (`tools` array); assignable to
 * the `@anthropic-ai/sdk` package's `Messages.Tool`.
 *
 * @example
 * ```ts
 * import type { AnthropicTool } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const tool: AnthropicTool = {
 *   name: "task_list",
 *   description: "List tasks.",
 *   input_schema: { type: "object", properties: {}, required: [], additionalProperties: false },
 * };
 * assert.equal(JSON.parse(JSON.stringify(tool)).input_schema.type, "object");
 * ```
 */
export type AnthropicTool = {
  /** The name the model calls. */
  name: string;
  /** What the tool does. */
  description: string;
  /** The JSON Schema of the input. */
  input_schema: ObjectJsonSchema;
};

/**
 * A tool as an MCP server lists it in its `tools/list` result; assignable to
 * the MCP SDK's `Tool` (`@modelcontextprotocol/sdk/types.js`).
 *
 * @example
 * ```ts
 * import type { McpTool } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const tool: McpTool = {
 *   name: "task_list",
 *   description: "List tasks.",
 *   inputSchema: { type: "object", properties: {}, required: [], additionalProperties: false },
 * };
 * assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(tool))), ["name", "description", "inputSchema"]);
 * ```
 */
export type McpTool = {
  /** The name clients call in `tools/call`. */
  name: string;
  /** What the tool does. */
  description: string;
  /** The JSON Schema of the arguments. */
  inputSchema: ObjectJsonSchema;
};

/**
 * The tool as an OpenAI Chat Completions function tool:
 * `{ type: "function", function: { name, description, parameters } }`. The
 * schema is copied, and `strict` is left unset because optional fields are
 * not allowed in strict mode. OpenAI sends the arguments as JSON text, which
 * `execute` accepts as is.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import { createBashTools, toOpenAITool } from "@shellseam/bash/tool";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor({ cwd: "/tmp" });
 * await using tasks = new TaskRegistry();
 * const { bash } = createBashTools({ executor, tasks, owner: taskOwner("s") });
 * const tool = toOpenAITool(bash);
 * assert.equal(tool.type, "function");
 * assert.equal(tool.function.name, "bash");
 * assert.deepEqual(tool.function.parameters, bash.inputSchema);
 * ```
 */
export function toOpenAITool(tool: AgentTool): OpenAITool {
  return {
    type: "function",
    function: {
      name: tool.name,
      description: tool.description,
      parameters: structuredClone(tool.inputSchema),
    },
  };
}

/**
 * The tool as an OpenAI Responses API function tool:
 * `{ type: "function", name, description, parameters, strict: false }`. The
 * schema is copied; `strict` is `false` because optional fields are not
 * allowed in strict mode. The model's `function_call` item carries the
 * arguments as JSON text, which `execute` accepts as is.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import { createBashTools, toOpenAIResponsesTool } from "@shellseam/bash/tool";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor({ cwd: "/tmp" });
 * await using tasks = new TaskRegistry();
 * const { bash } = createBashTools({ executor, tasks, owner: taskOwner("s") });
 * const tool = toOpenAIResponsesTool(bash);
 * assert.equal(tool.name, "bash");
 * assert.equal(tool.strict, false);
 * assert.deepEqual(tool.parameters, bash.inputSchema);
 * ```
 */
export function toOpenAIResponsesTool(tool: AgentTool): OpenAIResponsesTool {
  return {
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: structuredClone(tool.inputSchema),
    strict: false,
  };
}

/**
 * The tool as an Anthropic Messages API client tool:
 * `{ name, description, input_schema }` (the schema is copied).
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import { createBashTools, toAnthropicTool } from "@shellseam/bash/tool";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor({ cwd: "/tmp" });
 * await using tasks = new TaskRegistry();
 * const { tools } = createBashTools({ executor, tasks, owner: taskOwner("s") });
 * assert.deepEqual(tools.map(toAnthropicTool).map((t) => t.name), [
 *   "bash", "task_output", "task_list", "task_kill",
 * ]);
 * ```
 */
export function toAnthropicTool(tool: AgentTool): AnthropicTool {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: structuredClone(tool.inputSchema),
  };
}

/**
 * The tool as an MCP `tools/list` entry: `{ name, description, inputSchema }`
 * (the schema is copied). Answer `tools/call` with
 * `{ content: [{ type: "text", text }], isError }` from `execute`.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import { createBashTools, toMcpTool } from "@shellseam/bash/tool";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor({ cwd: "/tmp" });
 * await using tasks = new TaskRegistry();
 * const { taskList } = createBashTools({ executor, tasks, owner: taskOwner("s") });
 * assert.deepEqual(toMcpTool(taskList).inputSchema, {
 *   type: "object", properties: {}, required: [], additionalProperties: false,
 * });
 * ```
 */
export function toMcpTool(tool: AgentTool): McpTool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: structuredClone(tool.inputSchema),
  };
}
