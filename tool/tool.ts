import type { ObjectJsonSchema, ToolStandardSchema } from "./schemas/mod.ts";
import type { CommandRuleVerdict } from "./rules/mod.ts";

/**
 * What a tool call returns: the text the model reads, and whether the call
 * failed (bad arguments, a command that did not finish cleanly, a refused
 * escalation, ...). Maps onto MCP's `{ content, isError }`, Anthropic's
 * `tool_result.is_error` and an OpenAI tool message.
 *
 * @example
 * ```ts
 * import type { ToolResult } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const result: ToolResult = { text: "hi\n[exit code: 0]", isError: false };
 * assert.equal(result.isError, false);
 * ```
 */
export interface ToolResult {
  /** The text for the model. */
  text: string;
  /** True when the call failed; the text says why and what to do. */
  isError: boolean;
  /**
   * How the command rules judged a `bash` call (present when the tools have
   * rules), with the rule that decided: for the harness's logs.
   */
  rules?: CommandRuleVerdict;
}

/**
 * What a running `bash` call shows so far, for a harness to render.
 *
 * @example
 * ```ts
 * import type { ToolUpdate } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const updates: ToolUpdate[] = [{ text: "building...\n[stderr]\nwarning: x" }];
 * assert.match(updates[0]!.text, /building/);
 * ```
 */
export interface ToolUpdate {
  /**
   * The output so far, cleaned as in the result (terminal controls and
   * redraws removed), stdout then a `[stderr]` section; each stream's last
   * characters when it is long.
   */
  text: string;
}

/**
 * Per-call context a harness may pass to {@linkcode AgentTool.execute}.
 *
 * @example
 * ```ts
 * import type { ToolCallContext } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const controller = new AbortController();
 * const context: ToolCallContext = { signal: controller.signal };
 * controller.abort();
 * assert.equal(context.signal?.aborted, true);
 * ```
 */
export interface ToolCallContext {
  /**
   * Aborting it cancels the call: a command not started yet is not run, a
   * foreground command is killed (an error result either way), and a
   * `task_output` wait stops waiting. A background command, once started, is
   * not tied to it.
   */
  signal?: AbortSignal;
  /**
   * Called while a foreground `bash` command runs with its output so far, at
   * most every 250 ms and once more when it ends (never for a background
   * start). One that throws is not called again; the call goes on.
   */
  onUpdate?: (update: ToolUpdate) => void;
}

/**
 * A model-facing tool: a name, a description written for the model, a plain
 * JSON Schema for its input (and the same as a Standard Schema), and
 * `execute`, which validates the arguments against that schema before doing
 * anything. `execute` never rejects for a
 * model mistake; it returns an error result the model can act on.
 *
 * @example Call a tool by hand
 * ```ts
 * import { type AgentTool, type ObjectJsonSchema, toolStandardSchema } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * const inputSchema: ObjectJsonSchema = {
 *   type: "object",
 *   properties: { text: { type: "string" } },
 *   required: ["text"],
 *   additionalProperties: false,
 * };
 * const echo: AgentTool = {
 *   name: "echo",
 *   description: "Echo the text back.",
 *   inputSchema,
 *   standardSchema: toolStandardSchema("echo", inputSchema),
 *   execute: (args) => Promise.resolve({ text: JSON.stringify(args), isError: false }),
 * };
 * assert.equal((await echo.execute({ text: "hi" })).text, '{"text":"hi"}');
 * ```
 */
export interface AgentTool {
  /** The tool name, as the model calls it (`bash`, `task_output`, ...). */
  readonly name: string;
  /** What the tool does and how to use it, written for the model. */
  readonly description: string;
  /** The input schema: a JSON Schema object with `additionalProperties: false`. */
  readonly inputSchema: ObjectJsonSchema;
  /**
   * The same schema as a Standard Schema v1 with Standard JSON Schema v1,
   * whose `validate` is the check `execute` runs: for the frameworks that
   * take one (the Vercel AI SDK, the OpenAI Agents SDK).
   */
  readonly standardSchema: ToolStandardSchema;
  /**
   * Runs the tool. `args` is the parsed arguments object, or the raw JSON
   * text of it (OpenAI sends arguments as a string).
   */
  execute(args: unknown, context?: ToolCallContext): Promise<ToolResult>;
}
