import type { ToolStandardSchema } from "./schemas/mod.ts";
import type { AgentTool } from "./tool.ts";
import { textOrThrow } from "./_text_or_throw.ts";

/**
 * A tool as the Vercel AI SDK (`ai`) takes it in `generateText({ tools })`
 * and `streamText`: a structural type, assignable to the SDK's `Tool` (a test
 * holds it to the pinned `ai`), so the library needs no dependency.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import { type AiSdkTool, createBashTools, toAiSdkTools } from "@shellseam/bash/tool";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor();
 * await using tasks = new TaskRegistry();
 * const { bash } = createBashTools({ executor, tasks, owner: taskOwner("s") });
 * const tool: AiSdkTool | undefined = toAiSdkTools([bash]).bash;
 * assert.equal(tool?.inputSchema["~standard"].vendor, "shellseam");
 * assert.equal(tool?.description, bash.description);
 * ```
 */
export type AiSdkTool = {
  /** What the tool does, for the model. */
  description: string;
  /** The tool's Standard Schema (the SDK asks it for draft-07 JSON Schema and validates with it). */
  inputSchema: ToolStandardSchema;
  /** Runs the tool: resolves with its text, or throws a `ToolCallError` when the call failed. */
  execute: (
    input: Record<string, unknown>,
    options: { abortSignal?: AbortSignal },
  ) => Promise<string>;
};

/**
 * The tools for the Vercel AI SDK, by name: `generateText({ model, tools:
 * toAiSdkTools(set.tools) })`. A call resolves with the tool's text; a failed
 * call (`isError`) throws a {@linkcode ToolCallError} whose message is that
 * text, which the SDK reports as a `tool-error` and sends the model as its
 * error text, so the model reads the command's output either way. The SDK's
 * abort signal cancels the call.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import { createBashTools, toAiSdkTools, ToolCallError } from "@shellseam/bash/tool";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor({ cwd: "/tmp" });
 * await using tasks = new TaskRegistry();
 * const tools = toAiSdkTools(createBashTools({ executor, tasks, owner: taskOwner("s") }).tools);
 * assert.deepEqual(Object.keys(tools), ["bash", "task_output", "task_list", "task_kill"]);
 * const bash = tools.bash!;
 * assert.equal(await bash.execute({ command: "echo hi", description: "Say hi" }, {}), "hi\n[exit code: 0]");
 * await assert.rejects(
 *   bash.execute({ command: "echo oops; exit 3", description: "Fail" }, {}),
 *   (error) => error instanceof ToolCallError && error.message === "oops\n[exit code: 3]",
 * );
 * ```
 */
export function toAiSdkTools(tools: readonly AgentTool[]): Record<string, AiSdkTool> {
  const byName: Record<string, AiSdkTool> = {};
  for (const tool of tools) {
    byName[tool.name] = {
      description: tool.description,
      inputSchema: tool.standardSchema,
      execute: (input, { abortSignal }) => textOrThrow(tool, input, abortSignal),
    };
  }
  return byName;
}
