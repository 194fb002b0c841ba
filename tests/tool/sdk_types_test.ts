// The tool formats against the SDKs they are made for: each result is
// assigned to the SDK's own type, so a mismatch fails `deno test` and
// `deno check` of this file. The SDKs are dev-only imports (type-only here, so
// the compiled test of the Node leg imports none of them).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
// Named inline, not in deno.json's imports: `deno task` installs every package
// of the root import map and lock, and a cold `deno task demo` must download
// only what the demo imports (tests/cli/cold_demo_test.ts). Pinned in
// tests/deno.lock.
// deno-lint-ignore no-import-prefix
import type OpenAI from "npm:openai@7.59.0";
// deno-lint-ignore no-import-prefix
import type Anthropic from "npm:@anthropic-ai/sdk@1.14.0";
import type { Tool as McpSdkTool } from "@modelcontextprotocol/sdk/types.js";
import { taskOwner, TaskRegistry } from "../../tasks/mod.ts";
import {
  type AgentTool,
  createBashTools,
  toAnthropicTool,
  toMcpTool,
  toOpenAIResponsesTool,
  toOpenAITool,
} from "../../tool/mod.ts";
import { FakeSandboxExecutor } from "./_fakes.ts";

// The four tools, then the bash tool of a sandboxing executor with an
// approver (its schema has the escalation fields).
async function withTools(use: (tools: AgentTool[]) => void): Promise<void> {
  await using tasks = new TaskRegistry();
  const owner = taskOwner("s");
  const plain = createBashTools({ executor: new FakeSandboxExecutor(null), tasks, owner });
  const sandboxed = createBashTools({
    executor: new FakeSandboxExecutor("read-only"),
    tasks,
    owner,
    approve: () => Promise.resolve("reject"),
  });
  use([...plain.tools, sandboxed.bash]);
}

describe("tool formats fit the SDK types", () => {
  it("OpenAI Chat Completions: ChatCompletionTool", async () => {
    await withTools((tools) => {
      const sdk: OpenAI.Chat.Completions.ChatCompletionTool[] = tools.map(toOpenAITool);
      const functionTool: OpenAI.Chat.Completions.ChatCompletionFunctionTool = toOpenAITool(
        tools[0]!,
      );
      assert.equal(sdk.length, 5);
      assert.equal(functionTool.function.name, "bash");
    });
  });

  it("OpenAI Responses: Responses.FunctionTool (and Responses.Tool)", async () => {
    await withTools((tools) => {
      const sdk: OpenAI.Responses.FunctionTool[] = tools.map(toOpenAIResponsesTool);
      const anyTool: OpenAI.Responses.Tool = toOpenAIResponsesTool(tools[1]!);
      assert.deepEqual(sdk.map((tool) => [tool.type, tool.name, tool.strict]), [
        ["function", "bash", false],
        ["function", "task_output", false],
        ["function", "task_list", false],
        ["function", "task_kill", false],
        ["function", "bash", false],
      ]);
      assert.equal(anyTool.type, "function");
    });
  });

  it("Anthropic Messages: Messages.Tool (and ToolUnion)", async () => {
    await withTools((tools) => {
      const sdk: Anthropic.Messages.Tool[] = tools.map(toAnthropicTool);
      const union: Anthropic.Messages.ToolUnion = toAnthropicTool(tools[2]!);
      assert.equal(sdk[0]?.input_schema.type, "object");
      assert.equal("name" in union && union.name, "task_list");
    });
  });

  it("MCP: Tool of @modelcontextprotocol/sdk/types.js", async () => {
    await withTools((tools) => {
      const sdk: McpSdkTool[] = tools.map(toMcpTool);
      assert.deepEqual(sdk.map((tool) => tool.name), [
        "bash",
        "task_output",
        "task_list",
        "task_kill",
        "bash",
      ]);
    });
  });
});
