/**
 * The model-facing tools: `bash`, `task_output`, `task_list` and `task_kill`
 * over any `BashExecutor` and a `TaskRegistry`, and `git_commit` for a
 * sandboxed session, which cannot write `.git` (each with its JSON Schema as
 * `inputSchema`, validating its own arguments and rendering its own results),
 * sandbox escalation through a harness approver, command rules, exporters
 * to the OpenAI (Chat Completions and Responses), Anthropic and MCP tool
 * formats, and adapters for the Vercel AI SDK and the OpenAI Agents SDK (each
 * tool's `standardSchema` is a Standard Schema with Standard JSON Schema).
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
 * const { tools, bash } = createBashTools({ executor, tasks, owner: taskOwner("session-1") });
 * const definitions = tools.map(toAnthropicTool);
 * assert.equal(definitions[0]?.name, "bash");
 * const result = await bash.execute({ command: "exit 3", description: "Fail on purpose" });
 * assert.deepEqual(result, { text: "(no output)\n[exit code: 3]", isError: true });
 * ```
 *
 * @module
 */
export { type BashTools, type BashToolsOptions, createBashTools } from "./create.ts";
export { createGitCommitTool, type GitCommitToolOptions } from "./git_commit.ts";
export type { AgentTool, ToolCallContext, ToolResult, ToolUpdate } from "./tool.ts";
export {
  type JsonSchemaProperty,
  type ObjectJsonSchema,
  TOOL_SCHEMA_TARGETS,
  type ToolSchemaResult,
  type ToolStandardSchema,
  toolStandardSchema,
  type ValidateOptions,
} from "./schemas/mod.ts";
// One-line adapters for the agent frameworks (no dependency on them).
export { type AiSdkTool, toAiSdkTools } from "./ai_sdk.ts";
export { type OpenAIAgentsToolOptions, toOpenAIAgentsTools } from "./openai_agents.ts";
export { ToolCallError } from "./call_error.ts";
export { BASH_TOOL_GUIDANCE } from "./guidance.ts";
export type { ApproveEscalation, EscalationDecision, EscalationRequest } from "./escalation.ts";
export {
  checkCommandRules,
  checkRuleSet,
  type CommandDecision,
  type CommandRule,
  type CommandRuleVerdict,
} from "./rules/mod.ts";
export {
  type AnthropicTool,
  type McpTool,
  type OpenAIResponsesTool,
  type OpenAITool,
  toAnthropicTool,
  toMcpTool,
  toOpenAIResponsesTool,
  toOpenAITool,
} from "./formats.ts";
// For a harness that runs commands itself: the model's view of a result, and
// a background process as a task of the registry (read by `task_output`);
// and the secrets the environment scrub keeps from commands, redacted in
// what the model reads.
export {
  type BashTaskOutput,
  MIN_REDACTED_LENGTH,
  redactSecrets,
  type RenderRunOptions,
  renderRunResult,
  scrubbedSecrets,
} from "./render/mod.ts";
export { bashTaskHooks } from "./task_hooks.ts";
// A terminal task's screen as a person would see it (see `task_input`).
export { type ScreenRenderer, type ScreenSnapshot, TextScreen } from "./screen.ts";
