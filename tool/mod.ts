/**
 * The model-facing tools: `bash`, `task_output`, `task_list` and `task_kill`
 * over any `BashExecutor` and a `TaskRegistry`, with plain JSON Schemas,
 * argument validation, rendering for the model, sandbox escalation through a
 * harness approver, and exporters to the OpenAI, Anthropic and MCP tool
 * formats.
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
 * const { tools, bash } = createBashTools({ executor, tasks, owner: taskOwner("session-1") });
 * const definitions = tools.map(toAnthropicTool);
 * assert.equal(definitions[0]?.name, "bash");
 * const result = await bash.execute({ command: "exit 3", description: "Fail on purpose" });
 * assert.deepEqual(result, { text: "(no output)\n[exit code: 3]", isError: true });
 * ```
 *
 * @module
 */
export * from "./create.ts";
export * from "./escalation.ts";
export * from "./formats.ts";
export * from "./guidance.ts";
export * from "./json_schema.ts";
export * from "./redact.ts";
export * from "./render_run.ts";
export * from "./render_task.ts";
export * from "./schemas.ts";
export * from "./task_hooks.ts";
export * from "./terminal.ts";
export * from "./tool.ts";
export * from "./validate.ts";
export * from "./rules.ts";
