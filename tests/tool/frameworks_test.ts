// The tools in the agent frameworks, against the pinned packages (dev-only imports, named by
// npm: specifier so that they stay out of the root import map and lock): the
// Standard Schema types of the spec, the Vercel AI SDK's generateText and the OpenAI Agents
// SDK's run, each with a scripted model that calls `bash` (no network). The types fit with
// no cast: a mismatch fails `deno check` of this file.
// deno-lint-ignore-file no-import-prefix -- dev-only packages, kept out of the root import map so that a cold `deno task demo` does not download them
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { StandardJSONSchemaV1, StandardSchemaV1 } from "npm:@standard-schema/spec@1.1.0";
import type { ToolSet } from "npm:ai@7.0.173";
import type { MockLanguageModelV4 } from "npm:ai@7.0.173/test";
import type { FunctionTool, Model, ModelRequest, ModelResponse } from "npm:@openai/agents@0.20.0";
import { LocalBashExecutor } from "../../local/mod.ts";
import { taskOwner, TaskRegistry } from "../../tasks/mod.ts";
import {
  type AgentTool,
  createBashTools,
  toAiSdkTools,
  type ToolStandardSchema,
  toOpenAIAgentsTools,
} from "../../tool/mod.ts";
import { FakeSandboxExecutor } from "./_fakes.ts";

// The frameworks are dev dependencies of the Deno tests: the Node leg, which has not installed
// them, skips these tests and never loads them (type imports are erased).
const skip = "Deno" in globalThis ? false : "the frameworks are dev dependencies of the Deno tests";
const { generateText, stepCountIs } = skip
  ? {} as typeof import("npm:ai@7.0.173")
  : await import("npm:ai@7.0.173");
const { MockLanguageModelV4: MockModel } = skip
  ? {} as typeof import("npm:ai@7.0.173/test")
  : await import("npm:ai@7.0.173/test");
const { Agent, run, setTracingDisabled, tool, Usage } = skip
  ? {} as typeof import("npm:@openai/agents@0.20.0")
  : await import("npm:@openai/agents@0.20.0");

/** The tools of a local executor in a temporary folder, disposed after `use`. */
async function withTools(use: (tools: AgentTool[]) => Promise<void>): Promise<void> {
  await using executor = new LocalBashExecutor({ cwd: "/tmp" });
  await using tasks = new TaskRegistry();
  await use(createBashTools({ executor, tasks, owner: taskOwner("s") }).tools);
}

describe("the tools' Standard Schema", () => {
  it("is a Standard Schema v1 and a Standard JSON Schema v1, with `required` stated", async () => {
    await using tasks = new TaskRegistry();
    const owner = taskOwner("s");
    const sets = [
      createBashTools({ executor: new FakeSandboxExecutor(null), tasks, owner }).tools,
      createBashTools({
        executor: new FakeSandboxExecutor("read-only"),
        tasks,
        owner,
        approve: () => Promise.resolve("reject"),
      }).tools,
    ];
    for (const agentTool of sets.flat()) {
      const schema: StandardSchemaV1<Record<string, unknown>> = agentTool.standardSchema;
      const json: StandardJSONSchemaV1<Record<string, unknown>> = agentTool.standardSchema;
      assert.equal(schema["~standard"].version, 1);
      assert.equal(schema["~standard"].vendor, "shellseam");
      for (const target of ["draft-07", "draft-2020-12", "openapi-3.0"]) {
        const input = json["~standard"].jsonSchema.input({ target });
        assert.deepEqual(input, agentTool.inputSchema, `${agentTool.name} ${target}`);
        assert.equal(input.type, "object");
        assert.ok(Array.isArray(input.required), `${agentTool.name} states required`);
        assert.deepEqual(json["~standard"].jsonSchema.output({ target }), input);
      }
      // A copy: a framework that edits it leaves the tool's schema as it was.
      json["~standard"].jsonSchema.input({ target: "draft-07" }).type = "changed";
      assert.equal(agentTool.inputSchema.type, "object");
      assert.throws(
        () => json["~standard"].jsonSchema.input({ target: "draft-04" }),
        /The tool schemas convert to "draft-2020-12", "draft-07", "openapi-3.0"; got target "draft-04"/,
      );
    }
  });

  it("validates as the tool does, synchronously, with the tool's own words", async () => {
    await withTools(async (tools) => {
      const bash = tools[0]!;
      const taskOutput = tools[1]!;
      const validate = bash.standardSchema["~standard"].validate;
      assert.deepEqual(validate({ command: "ls", description: "List" }), {
        value: { command: "ls", description: "List" },
      });
      const refused = validate({ command: "ls", description: "List", env: { A: "1" } });
      assert.ok(!(refused instanceof Promise) && refused.issues !== undefined);
      const said = await bash.execute({ command: "ls", description: "List", env: { A: "1" } });
      assert.deepEqual(refused.issues, [{ message: said.text }]);
      // A check across fields, as task_output's execute makes it.
      const across = taskOutput.standardSchema["~standard"].validate({
        task_id: "bash-1",
        timeout_ms: 5,
      });
      assert.match(across.issues?.[0]?.message ?? "", /timeout_ms applies only with wait: true/);
      for (const value of [null, "{}", [], 3, undefined]) {
        assert.match(
          validate(value).issues?.[0]?.message ?? "",
          /^Invalid arguments for bash: expected an object of named fields; got /,
        );
      }
    });
  });
});

/** A scripted AI SDK model: a `bash` call with `input` first, then a closing text. */
function scriptedAiSdkModel(input: Record<string, unknown>): MockLanguageModelV4 {
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
  return new MockModel({
    doGenerate: [
      {
        content: [{
          type: "tool-call",
          toolCallId: "call-1",
          toolName: "bash",
          input: JSON.stringify(input),
        }],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      },
      {
        content: [{ type: "text", text: "done" }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      },
    ],
  });
}

describe("Vercel AI SDK: generateText with toAiSdkTools", { skip }, () => {
  it("runs bash for a scripted model and sends the model the result", async () => {
    await withTools(async (tools) => {
      const aiTools: ToolSet = toAiSdkTools(tools);
      const model = scriptedAiSdkModel({ command: "echo hi from ai", description: "Say hi" });
      const result = await generateText({
        model,
        tools: aiTools,
        prompt: "Say hi",
        stopWhen: stepCountIs(3),
      });
      assert.equal(result.text, "done");
      const [first] = result.steps;
      assert.deepEqual(first?.toolResults.map((r) => [r.toolName, r.output]), [
        ["bash", "hi from ai\n[exit code: 0]"],
      ]);
      // The model was offered the tool's JSON Schema (draft-07), and read the result.
      const offered = model.doGenerateCalls[0]?.tools?.find((t) => t.name === "bash");
      assert.ok(offered?.type === "function");
      assert.deepEqual(offered.inputSchema.required, ["command", "description"]);
      assert.deepEqual(Object.keys(offered.inputSchema.properties ?? {}), [
        "command",
        "description",
        "timeout_ms",
        "workdir",
        "run_in_background",
      ]);
      assert.match(
        JSON.stringify(model.doGenerateCalls[1]?.prompt),
        /"type":"text","value":"hi from ai\\n\[exit code: 0\]"/,
      );
    });
  });

  it("reports a failed command as a tool error whose text the model reads in full", async () => {
    await withTools(async (tools) => {
      const model = scriptedAiSdkModel({ command: "echo why >&2; exit 4", description: "Fail" });
      const result = await generateText({
        model,
        tools: toAiSdkTools(tools),
        prompt: "Fail",
        stopWhen: stepCountIs(3),
      });
      const errors = result.steps[0]?.content.filter((part) => part.type === "tool-error") ?? [];
      assert.equal(errors.length, 1);
      assert.match(
        JSON.stringify(model.doGenerateCalls[1]?.prompt),
        /"type":"error-text","value":"\[stderr\]\\nwhy\\n\[exit code: 4\]"/,
      );
    });
  });

  it("refuses arguments the tool refuses, in the tool's words", async () => {
    await withTools(async (tools) => {
      const model = scriptedAiSdkModel({ command: "ls" });
      await generateText({
        model,
        tools: toAiSdkTools(tools),
        prompt: "List",
        stopWhen: stepCountIs(3),
      });
      assert.match(
        JSON.stringify(model.doGenerateCalls[1]?.prompt),
        /Invalid arguments for bash: description is required/,
      );
    });
  });
});

/**
 * A scripted Agents SDK model: a `bash` call with `input` first, then a
 * closing message; it keeps each request.
 */
class ScriptedAgentsModel implements Model {
  readonly requests: ModelRequest[] = [];
  readonly #input: Record<string, unknown>;

  constructor(input: Record<string, unknown>) {
    this.#input = input;
  }

  getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const usage = new Usage({ requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 });
    if (this.requests.length === 1) {
      return Promise.resolve({
        usage,
        output: [{
          type: "function_call",
          callId: "call-1",
          name: "bash",
          arguments: JSON.stringify(this.#input),
          status: "completed",
        }],
      });
    }
    return Promise.resolve({
      usage,
      output: [{
        type: "message",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "done" }],
      }],
    });
  }

  getStreamedResponse(): AsyncIterable<never> {
    throw new Error("The scripted model answers getResponse only");
  }
}

/** Runs an agent on `model` with `tools`, with tracing off (it would export to OpenAI). */
function runAgent(model: ScriptedAgentsModel, tools: FunctionTool<unknown, ToolStandardSchema>[]) {
  setTracingDisabled(true);
  return run(new Agent({ name: "coder", instructions: "Run it.", model, tools }), "Go");
}

/** The text of the tool result the model was sent on its second turn. */
function functionCallOutput(model: ScriptedAgentsModel): string {
  const input = model.requests[1]?.input;
  assert.ok(Array.isArray(input), "the second request carries the conversation");
  const output = input.find((item) => item.type === "function_call_result");
  assert.ok(output?.type === "function_call_result");
  const value = output.output;
  assert.ok(typeof value === "object" && "type" in value && value.type === "text");
  return value.text;
}

describe("OpenAI Agents SDK: run with toOpenAIAgentsTools", { skip }, () => {
  it("runs bash for a scripted model, offering a strict draft-2020-12 schema", async () => {
    await withTools(async (tools) => {
      // The SDK's own type, inferred through its `tool` helper.
      const agentTools: FunctionTool<unknown, ToolStandardSchema, string>[] = toOpenAIAgentsTools(
        tools,
        tool,
      );
      const model = new ScriptedAgentsModel({
        command: "echo hi from agents",
        description: "Say hi",
      });
      const result = await runAgent(model, agentTools);
      assert.equal(result.finalOutput, "done");
      assert.equal(functionCallOutput(model), "hi from agents\n[exit code: 0]");
      const offered = model.requests[0]?.tools.find((t) => t.type === "function");
      assert.ok(offered?.type === "function");
      assert.equal(offered.strict, true);
      assert.equal(offered.parameters.type, "object");
      // Strict mode: every field required, the optional ones nullable.
      assert.deepEqual(
        [...offered.parameters.required].sort(),
        ["command", "description", "run_in_background", "timeout_ms", "workdir"],
      );
    });
  });

  it("shows the model a failed command's whole text, not the SDK's default", async () => {
    await withTools(async (tools) => {
      const model = new ScriptedAgentsModel({ command: "echo why; exit 4", description: "Fail" });
      await runAgent(model, toOpenAIAgentsTools(tools, tool));
      assert.equal(functionCallOutput(model), "why\n[exit code: 4]");
    });
  });

  it("answers arguments the tool refuses in the tool's words", async () => {
    await withTools(async (tools) => {
      const model = new ScriptedAgentsModel({
        command: "ls",
        description: "List",
        timeout_ms: 0,
      });
      await runAgent(model, toOpenAIAgentsTools(tools, tool));
      assert.match(
        functionCallOutput(model),
        /Invalid arguments for bash: timeout_ms must be a positive integer; got 0/,
      );
    });
  });
});
