/**
 * The tools for LangChain.js (`@langchain/core` 1.x), on npm only as
 * `@shellseam/bash/langchain`: `@langchain/core` is an optional peer
 * dependency of the package, so the tools are made by the application's own
 * copy (LangChain tells its messages and tools apart by class and brand, and
 * two copies would not agree), and `npm i @shellseam/bash` alone installs
 * nothing more. JSR has no peer dependencies, so this entry point is not
 * published there.
 *
 * @example On Node 22 and 24 with `@langchain/core` installed, and on Deno
 * ```ts
 * import { toLangChainTools } from "@shellseam/bash/langchain";
 * import { createBashTools } from "@shellseam/bash/tool";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * const executor = new LocalBashExecutor({ cwd: "/tmp" });
 * const tasks = new TaskRegistry();
 * try {
 *   const session = createBashTools({ executor, tasks, owner: taskOwner("s") });
 *   const [bash] = toLangChainTools(session.tools);
 *   const args = { command: "echo oops; exit 3", description: "Fail" };
 *   const message = await bash!.invoke({ type: "tool_call", id: "call-1", name: "bash", args });
 *   assert.deepEqual([message.status, message.content], ["error", "oops\n[exit code: 3]"]);
 * } finally {
 *   await tasks.close();
 *   await executor.close();
 * }
 * ```
 *
 * @module
 */
// deno-lint-ignore-file no-import-prefix -- the peer dependency, named by npm: specifier so that it stays out of the root import map and lock (the build turns each into `@langchain/core/...` and its range into the peer dependency's)
import {
  StructuredTool,
  type StructuredToolCallInput,
  ToolInputParsingException,
  type ToolReturnType,
  type ToolRunnableConfig,
} from "npm:@langchain/core@^1.0.0/tools";
import { ToolMessage } from "npm:@langchain/core@^1.0.0/messages";
import { type AgentTool, type ObjectJsonSchema, ToolCallError } from "../tool/mod.ts";

/**
 * What a tool's call resolves with: its text, or for a failed call made
 * with a tool call (as agents make them) a `ToolMessage` with
 * `status: "error"`.
 */
type LangChainToolOutput = string | ToolMessage;

/**
 * One of our tools as a LangChain `StructuredTool`, as
 * {@linkcode toLangChainTools} makes it: its JSON Schema is `schema`, and
 * its arguments are an object of named fields.
 *
 * @example On Node 22 and 24 with `@langchain/core` installed, and on Deno
 * ```ts
 * import { type LangChainTool, toLangChainTools } from "@shellseam/bash/langchain";
 * import { createBashTools } from "@shellseam/bash/tool";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * const executor = new LocalBashExecutor({ cwd: "/tmp" });
 * const tasks = new TaskRegistry();
 * try {
 *   const { bash } = createBashTools({ executor, tasks, owner: taskOwner("s") });
 *   const [tool]: LangChainTool[] = toLangChainTools([bash]);
 *   assert.equal(tool?.name, "bash");
 *   assert.deepEqual(tool?.schema, bash.inputSchema);
 *   assert.equal(await tool?.invoke({ command: "echo hi", description: "Say hi" }), "hi\n[exit code: 0]");
 * } finally {
 *   await tasks.close();
 *   await executor.close();
 * }
 * ```
 */
export type LangChainTool = StructuredTool<
  ObjectJsonSchema,
  Record<string, unknown>,
  Record<string, unknown>,
  LangChainToolOutput
>;

/** Whether `input` is a LangChain tool call (`{ type: "tool_call", args, id }`), as LangChain decides it. */
function isToolCall(
  input: unknown,
): input is { type: "tool_call"; args: unknown; id?: string | undefined } {
  return typeof input === "object" && input !== null && "type" in input &&
    input.type === "tool_call";
}

/** A tool of ours behind LangChain's `StructuredTool`. */
class BashStructuredTool extends StructuredTool<
  ObjectJsonSchema,
  Record<string, unknown>,
  Record<string, unknown>,
  LangChainToolOutput
> {
  name: string;
  description: string;
  schema: ObjectJsonSchema;
  readonly #tool: AgentTool;

  constructor(tool: AgentTool) {
    super();
    this.#tool = tool;
    this.name = tool.name;
    this.description = tool.description;
    this.schema = tool.inputSchema;
  }

  /**
   * Checks the arguments as the tool does, before LangChain checks them
   * against `schema` (which would say only "Received tool input did not
   * match expected schema"). A refused tool call resolves with an error
   * `ToolMessage` in the tool's own words (LangChain's `createAgent` would
   * send the model a thrown error with its stack trace); refused bare
   * arguments throw LangChain's `ToolInputParsingException`.
   */
  override call<
    TArg extends StructuredToolCallInput<ObjectJsonSchema, Record<string, unknown>>,
    TConfig extends ToolRunnableConfig | undefined,
  >(
    arg: TArg,
    configArg?: TConfig,
    tags?: string[],
  ): Promise<ToolReturnType<TArg, TConfig, LangChainToolOutput>> {
    const args = isToolCall(arg) ? arg.args : arg;
    const checked = this.#tool.standardSchema["~standard"].validate(args);
    if (!checked.issues) return super.call(arg, configArg, tags);
    const message = checked.issues.map((issue) => issue.message).join("\n");
    // `invoke` passes a tool call's arguments here and the call in the config.
    const toolCallId = isToolCall(arg) ? arg.id : configArg?.toolCall?.id;
    if (toolCallId === undefined) {
      return Promise.reject(new ToolInputParsingException(message, JSON.stringify(args)));
    }
    return Promise.resolve(this.#failed(message, toolCallId));
  }

  protected override async _call(
    input: Record<string, unknown>,
    _runManager?: unknown,
    config?: ToolRunnableConfig,
  ): Promise<LangChainToolOutput> {
    const signal = config?.signal;
    const result = await this.#tool.execute(input, signal ? { signal } : {});
    if (!result.isError) return result.text;
    const toolCallId = config?.toolCall?.id;
    if (toolCallId === undefined) throw new ToolCallError(this.name, result);
    return this.#failed(result.text, toolCallId);
  }

  /** The answer to the tool call `toolCallId` that failed, saying `text`. */
  #failed(text: string, toolCallId: string): ToolMessage {
    return new ToolMessage({
      content: text,
      status: "error",
      tool_call_id: toolCallId,
      name: this.name,
    });
  }
}

/**
 * The tools as LangChain `StructuredTool`s, for a chat model's `bindTools`
 * and an agent's `tools`: `toLangChainTools(session.tools)`. Each offers the
 * tool's JSON Schema. Called with a tool call (as agents call tools), a call
 * resolves with a `ToolMessage` whose content is the tool's whole text,
 * and a failed call (`isError`: a non-zero exit, a timeout, a refusal)
 * with one whose `status` is `"error"`, so the model reads the command's
 * output and the provider marks the result as an error; arguments the tool
 * refuses are answered so too, in the tool's own words (LangChain's check
 * of the JSON Schema would say only "Received tool input did not match
 * expected schema"). Called with bare arguments, a call resolves with the
 * text, a failed call throws a `ToolCallError` whose message is that text,
 * and refused arguments throw LangChain's `ToolInputParsingException` in the
 * tool's words. The call's abort signal cancels the command.
 *
 * @example On Node 22 and 24 with `@langchain/core` installed, and on Deno
 * ```ts
 * import { toLangChainTools } from "@shellseam/bash/langchain";
 * import { createBashTools } from "@shellseam/bash/tool";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * const executor = new LocalBashExecutor({ cwd: "/tmp" });
 * const tasks = new TaskRegistry();
 * try {
 *   const tools = toLangChainTools(createBashTools({ executor, tasks, owner: taskOwner("s") }).tools);
 *   assert.deepEqual(tools.map((tool) => tool.name), ["bash", "task_output", "task_list", "task_kill"]);
 *   const bash = tools[0]!;
 *   const call = { type: "tool_call" as const, id: "call-1", name: "bash" };
 *   const ok = await bash.invoke({ ...call, args: { command: "echo hi", description: "Say hi" } });
 *   assert.deepEqual([ok.status, ok.content], ["success", "hi\n[exit code: 0]"]);
 *   const refused = await bash.invoke({ ...call, args: { command: "ls" } });
 *   assert.deepEqual([refused.status, refused.content], [
 *     "error",
 *     "Invalid arguments for bash: description is required (a non-blank string)",
 *   ]);
 * } finally {
 *   await tasks.close();
 *   await executor.close();
 * }
 * ```
 */
export function toLangChainTools(tools: readonly AgentTool[]): LangChainTool[] {
  return tools.map((tool) => new BashStructuredTool(tool));
}
