// The LangChain adapter against the pinned @langchain/core (a dev-only import, named by npm:
// specifier so that it stays out of the root import map and lock): a scripted chat model calls
// `bash` through a tool-calling loop that answers as LangChain's agents do. The types fit with
// no cast: a mismatch fails `deno check` of this file. The Node leg installs the same version
// beside the package, so this file runs there too, against the built `@shellseam/bash/langchain`.
// deno-lint-ignore-file no-import-prefix -- dev-only package, kept out of the root import map so that a cold `deno task demo` does not download it
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BaseChatModel } from "npm:@langchain/core@1.4.0/language_models/chat_models";
import type { BindToolsInput } from "npm:@langchain/core@1.4.0/language_models/chat_models";
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  ToolMessage,
} from "npm:@langchain/core@1.4.0/messages";
import type { ChatResult } from "npm:@langchain/core@1.4.0/outputs";
import {
  type StructuredTool,
  type StructuredToolInterface,
  ToolInputParsingException,
} from "npm:@langchain/core@1.4.0/tools";
import { convertToOpenAITool } from "npm:@langchain/core@1.4.0/utils/function_calling";
import { LocalBashExecutor } from "../../local/mod.ts";
import { taskOwner, TaskRegistry } from "../../tasks/mod.ts";
import { type AgentTool, createBashTools, ToolCallError } from "../../tool/mod.ts";
import { type LangChainTool, toLangChainTools } from "../../npm_only/langchain.ts";

/** The tools of a local executor in a temporary folder, disposed after `use`. */
async function withTools(use: (tools: AgentTool[]) => Promise<void>): Promise<void> {
  const executor = new LocalBashExecutor({ cwd: "/tmp" });
  const tasks = new TaskRegistry();
  try {
    await use(createBashTools({ executor, tasks, owner: taskOwner("s") }).tools);
  } finally {
    await tasks.close();
    await executor.close();
  }
}

/**
 * A scripted chat model: a `bash` call with `args` first, then a closing
 * text. It keeps the messages of each turn and, from `bindTools`, the tools
 * as an OpenAI chat model offers them.
 */
class ScriptedChatModel extends BaseChatModel {
  readonly turns: BaseMessage[][] = [];
  offered: ReturnType<typeof convertToOpenAITool>[] = [];
  readonly #args: Record<string, unknown>;

  constructor(args: Record<string, unknown>) {
    super({});
    this.#args = args;
  }

  _llmType(): string {
    return "scripted";
  }

  override bindTools(tools: BindToolsInput[]): this {
    this.offered = tools.map((tool) => convertToOpenAITool(tool));
    return this;
  }

  _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.turns.push([...messages]);
    const message = this.turns.length === 1
      ? new AIMessage({
        content: "",
        tool_calls: [{ type: "tool_call", id: "call-1", name: "bash", args: this.#args }],
      })
      : new AIMessage("done");
    return Promise.resolve({ generations: [{ message, text: message.text }] });
  }
}

/**
 * A tool-calling loop: the model's tool calls run as `ToolNode` runs them in
 * LangChain's `createAgent` (a `ToolMessage` result goes to the model as it
 * is; a `ToolInputParsingException` becomes a `ToolMessage` with status
 * "error"), until the model answers without one. Returns the conversation.
 */
async function runLoop(model: ScriptedChatModel, tools: LangChainTool[]): Promise<BaseMessage[]> {
  const bound = model.bindTools(tools);
  const messages: BaseMessage[] = [new HumanMessage("Go")];
  for (let turn = 0; turn < 3; turn++) {
    const reply = await bound.invoke(messages);
    messages.push(reply);
    const calls = reply.tool_calls ?? [];
    if (calls.length === 0) return messages;
    for (const call of calls) {
      const tool = tools.find((candidate) => candidate.name === call.name);
      assert.ok(tool, `the model called a tool it was offered: ${call.name}`);
      const id = call.id ?? "";
      const result = await tool.invoke({ ...call, id, type: "tool_call" }).catch((error) => {
        if (!(error instanceof ToolInputParsingException)) throw error;
        return new ToolMessage({ content: error.message, status: "error", tool_call_id: id });
      });
      messages.push(result);
    }
  }
  throw new Error("The scripted model did not stop within 3 turns");
}

/** The tool result the model read on its second turn. */
function toolResultRead(model: ScriptedChatModel): ToolMessage {
  const message = model.turns[1]?.at(-1);
  assert.ok(message instanceof ToolMessage, "the second turn ends with the tool's result");
  assert.equal(message.tool_call_id, "call-1");
  return message;
}

describe("LangChain: toLangChainTools with a scripted chat model", () => {
  it("runs bash for the model, offering the tool's JSON Schema", async () => {
    await withTools(async (tools) => {
      const langChainTools = toLangChainTools(tools);
      // LangChain's own tool types: what `bindTools` and `createAgent({ tools })` take.
      const asInterfaces: StructuredToolInterface[] = langChainTools;
      const asTools: StructuredTool[] = langChainTools;
      assert.equal(asInterfaces.length, asTools.length);
      const model = new ScriptedChatModel({ command: "echo hi from langchain", description: "Hi" });
      const messages = await runLoop(model, langChainTools);
      assert.equal(messages.at(-1)?.text, "done");
      const read = toolResultRead(model);
      assert.equal(read.status, "success");
      assert.equal(read.content, "hi from langchain\n[exit code: 0]");
      assert.deepEqual(
        model.offered.map((offered) => offered.function.name),
        ["bash", "task_output", "task_list", "task_kill"],
      );
      assert.deepEqual(model.offered[0]?.function.parameters, tools[0]?.inputSchema);
    });
  });

  it("shows the model a failed command's whole output, marked as an error", async () => {
    await withTools(async (tools) => {
      const model = new ScriptedChatModel({ command: "echo why >&2; exit 4", description: "Fail" });
      await runLoop(model, toLangChainTools(tools));
      const read = toolResultRead(model);
      assert.equal(read.status, "error");
      assert.equal(read.name, "bash");
      assert.equal(read.content, "[stderr]\nwhy\n[exit code: 4]");
    });
  });

  it("answers refused arguments with an error ToolMessage in the tool's words", async () => {
    await withTools(async (tools) => {
      // LangChain's own check of the JSON Schema would refuse this too, saying only
      // "Received tool input did not match expected schema".
      const model = new ScriptedChatModel({ command: "ls", description: "List", env: { A: "1" } });
      await runLoop(model, toLangChainTools(tools));
      const read = toolResultRead(model);
      assert.equal(read.status, "error");
      assert.equal(read.name, "bash");
      assert.match(
        String(read.content),
        /^Invalid arguments for bash: unknown field "env"; set variables inside the command/,
      );
      // The same through the deprecated `call` with the tool call itself.
      const [bash] = toLangChainTools(tools);
      const args = { command: "ls", description: "List", timeout_ms: 0 };
      const called = await bash!.call({ type: "tool_call", id: "call-2", name: "bash", args });
      assert.deepEqual([called.status, called.tool_call_id, called.content], [
        "error",
        "call-2",
        "Invalid arguments for bash: timeout_ms must be a positive integer; got 0",
      ]);
    });
  });

  it("with bare arguments, resolves with the text and throws typed errors for a failure", async () => {
    await withTools(async (tools) => {
      const [bash] = toLangChainTools(tools);
      assert.equal(
        await bash!.invoke({ command: "echo plain", description: "Say plain" }),
        "plain\n[exit code: 0]",
      );
      await assert.rejects(
        bash!.invoke({ command: "echo oops; exit 3", description: "Fail" }),
        (error) => error instanceof ToolCallError && error.message === "oops\n[exit code: 3]",
      );
      // Refused arguments: LangChain's typed error, in the tool's words.
      const args = { command: "ls", description: "List", timeout_ms: 0 };
      await assert.rejects(
        bash!.invoke(args),
        (error) =>
          error instanceof ToolInputParsingException &&
          error.message ===
            "Invalid arguments for bash: timeout_ms must be a positive integer; got 0" &&
          error.output === JSON.stringify(args),
      );
    });
  });

  it("passes the call's abort signal to the command: a cancelled call runs nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "shellseam-langchain-"));
    try {
      await withTools(async (tools) => {
        const [bash] = toLangChainTools(tools);
        const marker = join(dir, "ran");
        const args = { command: `touch '${marker}'`, description: "Touch" };
        const message = await bash!.invoke(
          { type: "tool_call", id: "call-3", name: "bash", args },
          { signal: AbortSignal.abort() },
        );
        assert.equal(message.status, "error");
        assert.match(String(message.content), /cancelled/);
        assert.equal(existsSync(marker), false);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
