/**
 * `@shellseam/bash`: the bash capability of an AI agent harness. This entry
 * holds what a newcomer starts with: the local and the sandboxing executor,
 * the task registry, the model-facing tools and their exporters, and the
 * seam's main types and errors: 29 names, a deliberate list
 * (`tests/entry_points.json` pins it). The rest of each part is in its own
 * entry: `@shellseam/bash/seam`, `/local`, `/sandbox`, `/tasks`, `/tool`,
 * `/git`, `/remote`, `/testing`.
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

export {
  BashConfigError,
  BashError,
  type BashExecRequest,
  BashExecutor,
  type BashProcess,
  type BashRunResult,
  BashSpawnError,
  type SandboxMode,
  type SandboxPolicy,
  SandboxUnavailableError,
} from "./seam/mod.ts";
export { LocalBashExecutor, type LocalBashExecutorConfig } from "./local/mod.ts";
export { SandboxBashExecutor, type SandboxBashExecutorConfig } from "./sandbox/mod.ts";
export { type TaskOwner, taskOwner, TaskRegistry, type TaskRegistryOptions } from "./tasks/mod.ts";
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
  toOpenAIResponsesTool,
  toOpenAITool,
} from "./tool/mod.ts";
