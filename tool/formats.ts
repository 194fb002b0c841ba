import type { ObjectJsonSchema } from "./json_schema.ts";
import type { BashTool } from "./tool.ts";

/**
 * A function tool for the OpenAI Chat Completions API (`tools` array).
 *
 * @example
 * ```ts
 * import type { OpenAITool } from "@shellseam/bash/tool";
 *
 * const tool: OpenAITool = {
 *   type: "function",
 *   function: {
 *     name: "task_list",
 *     description: "List tasks.",
 *     parameters: { type: "object", properties: {}, additionalProperties: false },
 *   },
 * };
 * console.log(tool.function.name);
 * ```
 */
export interface OpenAITool {
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
}

/**
 * A client tool for the Anthropic Messages API (`tools` array).
 *
 * @example
 * ```ts
 * import type { AnthropicTool } from "@shellseam/bash/tool";
 *
 * const tool: AnthropicTool = {
 *   name: "task_list",
 *   description: "List tasks.",
 *   input_schema: { type: "object", properties: {}, additionalProperties: false },
 * };
 * console.log(tool.name);
 * ```
 */
export interface AnthropicTool {
  /** The name the model calls. */
  name: string;
  /** What the tool does. */
  description: string;
  /** The JSON Schema of the input. */
  input_schema: ObjectJsonSchema;
}

/**
 * A tool as an MCP server lists it in its `tools/list` result.
 *
 * @example
 * ```ts
 * import type { McpTool } from "@shellseam/bash/tool";
 *
 * const tool: McpTool = {
 *   name: "task_list",
 *   description: "List tasks.",
 *   inputSchema: { type: "object", properties: {}, additionalProperties: false },
 * };
 * console.log(tool.inputSchema.type);
 * ```
 */
export interface McpTool {
  /** The name clients call in `tools/call`. */
  name: string;
  /** What the tool does. */
  description: string;
  /** The JSON Schema of the arguments. */
  inputSchema: ObjectJsonSchema;
}

/**
 * The tool as an OpenAI Chat Completions function tool:
 * `{ type: "function", function: { name, description, parameters } }`. The
 * schema is copied, and `strict` is left unset because optional fields are
 * not allowed in strict mode. OpenAI sends the arguments as JSON text, which
 * `execute` accepts as is.
 *
 * @example
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
export function toOpenAITool(tool: BashTool): OpenAITool {
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
 * The tool as an Anthropic Messages API client tool:
 * `{ name, description, input_schema }` (the schema is copied).
 *
 * @example
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
export function toAnthropicTool(tool: BashTool): AnthropicTool {
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
 * @example
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
 *   type: "object", properties: {}, additionalProperties: false,
 * });
 * ```
 */
export function toMcpTool(tool: BashTool): McpTool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: structuredClone(tool.inputSchema),
  };
}
