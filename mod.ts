/**
 * `@shellseam/bash`: the bash capability of an AI agent harness. This entry
 * holds what a newcomer starts with: the local executor, the task registry,
 * the model-facing tools and their exporters, and the seam (everything of
 * `@shellseam/bash/seam`). The sandboxing executor is in
 * `@shellseam/bash/sandbox`; the rest of each part in its own entry.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import {
 *   BashSpawnError,
 *   createBashTools,
 *   LocalBashExecutor,
 *   taskOwner,
 *   TaskRegistry,
 *   toAnthropicTool,
 * } from "@shellseam/bash";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor({ cwd: "/tmp" });
 * await using tasks = new TaskRegistry();
 * const { tools, bash } = createBashTools({ executor, tasks, owner: taskOwner("session-1") });
 * assert.equal(toAnthropicTool(tools[0]!).name, "bash");
 * const result = await bash.execute({ command: "echo hi", description: "Say hi" });
 * assert.deepEqual(result, { text: "hi\n[exit code: 0]", isError: false });
 * assert.equal(new BashSpawnError("x").code, "spawn");
 * ```
 *
 * @module
 */
// The seam's own list (seam/mod.ts) is the one to keep: the root adds to it.
export * from "./seam/mod.ts";
export { LocalBashExecutor, type LocalBashExecutorConfig } from "./local/mod.ts";
export {
  DisposedTaskError,
  ExpiredTaskError,
  TaskLimitError,
  type TaskOwner,
  taskOwner,
  TaskOwnershipError,
  TaskRegistry,
  type TaskRegistryOptions,
  UnknownTaskError,
} from "./tasks/mod.ts";
export {
  type AgentTool,
  BASH_TOOL_GUIDANCE,
  type BashTools,
  type BashToolsOptions,
  createBashTools,
  toAnthropicTool,
  toMcpTool,
  type ToolCallContext,
  type ToolResult,
  type ToolUpdate,
  toOpenAIResponsesTool,
  toOpenAITool,
} from "./tool/mod.ts";
