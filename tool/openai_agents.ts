import { messageOf } from "../seam/message.ts";
import type { AgentTool } from "./tool.ts";
import { isPlainObject, type ToolStandardSchema } from "./schemas/mod.ts";
import { textOrThrow } from "./_text_or_throw.ts";

/**
 * What {@linkcode toOpenAIAgentsTools} hands the OpenAI Agents SDK's `tool()`
 * helper for each tool: a strict function tool whose `parameters` are the
 * tool's Standard Schema (the SDK asks it for draft-2020-12 JSON Schema and
 * validates with it).
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import type { OpenAIAgentsToolOptions } from "@shellseam/bash/tool";
 * import { createBashTools, toOpenAIAgentsTools } from "@shellseam/bash/tool";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor();
 * await using tasks = new TaskRegistry();
 * const { tools } = createBashTools({ executor, tasks, owner: taskOwner("s") });
 * const given: OpenAIAgentsToolOptions[] = toOpenAIAgentsTools(tools, (options) => options);
 * assert.deepEqual(given.map((options) => [options.name, options.strict]), [
 *   ["bash", true], ["task_output", true], ["task_list", true], ["task_kill", true],
 * ]);
 * ```
 */
export type OpenAIAgentsToolOptions = {
  /** The tool's name. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** The tool's Standard Schema. */
  parameters: ToolStandardSchema;
  /** Always true: the SDK requires strict mode for a Standard Schema. */
  strict: true;
  /** Runs the tool: resolves with its text, or throws a `ToolCallError` when the call failed. */
  execute: (
    input: Record<string, unknown>,
    context?: unknown,
    details?: { signal?: AbortSignal },
  ) => Promise<string>;
  /** What the model reads when a call throws: the error's message (a failed call's whole text). */
  errorFunction: (context: unknown, error: unknown) => string;
};

/**
 * `schema` with a `validate` that passes any object on, for `execute` to
 * check: the SDK answers a value its `validate` refuses with only "Invalid
 * JSON input for tool" (it drops the issues unless tool data may be logged),
 * while `execute` runs the same check and answers with the tool's own words.
 */
function checkedInExecute(schema: ToolStandardSchema): ToolStandardSchema {
  const standard = schema["~standard"];
  return {
    "~standard": {
      ...standard,
      validate: (value) => isPlainObject(value) ? { value } : standard.validate(value),
    },
  };
}

/**
 * The tools for the OpenAI Agents SDK (`@openai/agents`), made by its own
 * `tool` helper, which is passed in so that the library needs no dependency
 * and the result has the SDK's own `FunctionTool` type:
 * `new Agent({ tools: toOpenAIAgentsTools(set.tools, tool) })`. A failed call
 * (`isError`) throws a {@linkcode ToolCallError}, which the SDK records as a
 * tool error; its `errorFunction` answers the model with the call's whole
 * text (the SDK's default would say only "An error occurred while running
 * the tool", hiding the command's output). Arguments are checked by
 * `execute`, so that a refusal reaches the model in the tool's words too (the
 * SDK's own check of `parameters` would answer only "Invalid JSON input for
 * tool"). The SDK's abort signal cancels the call.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import { createBashTools, toOpenAIAgentsTools } from "@shellseam/bash/tool";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor({ cwd: "/tmp" });
 * await using tasks = new TaskRegistry();
 * const { bash } = createBashTools({ executor, tasks, owner: taskOwner("s") });
 * // With the SDK: toOpenAIAgentsTools([bash], tool), `tool` from "@openai/agents".
 * const [options] = toOpenAIAgentsTools([bash], (options) => options);
 * const failed = await options!.execute({ command: "echo oops; exit 3", description: "Fail" })
 *   .catch((error: unknown) => options!.errorFunction(undefined, error));
 * assert.equal(failed, "oops\n[exit code: 3]");
 * ```
 */
export function toOpenAIAgentsTools<T>(
  tools: readonly AgentTool[],
  tool: (options: OpenAIAgentsToolOptions) => T,
): T[] {
  return tools.map((agentTool) =>
    tool({
      name: agentTool.name,
      description: agentTool.description,
      parameters: checkedInExecute(agentTool.standardSchema),
      strict: true,
      execute: (input, _context, details) => textOrThrow(agentTool, input, details?.signal),
      errorFunction: (_context, error) => messageOf(error),
    })
  );
}
