import { isAbsolute } from "node:path";
import { BashConfigError } from "../seam/mod.ts";
import { createBashTool } from "./_bash.ts";
import type { BashToolsOptions } from "./options.ts";
import { createTaskTools } from "./_task_tools.ts";
import { createTaskInput, TerminalTasks } from "./_task_input.ts";
import { widerSandboxModes } from "../seam/sandbox.ts";
import { renderTaskNotice } from "./render/mod.ts";
import { checkRuleSet } from "./rules/mod.ts";
import type { AgentTool } from "./tool.ts";

export type { BashToolsOptions } from "./options.ts";

/**
 * The tool set for one session: every tool by name, the list to hand a model,
 * and the pending completion notices.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import type { BashTools } from "@shellseam/bash/tool";
 * import { createBashTools } from "@shellseam/bash/tool";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * function toolNames(set: BashTools): string[] {
 *   return set.tools.map((tool) => tool.name);
 * }
 * await using executor = new LocalBashExecutor();
 * await using tasks = new TaskRegistry();
 * const set = createBashTools({ executor, tasks, owner: taskOwner("s") });
 * assert.deepEqual(toolNames(set), ["bash", "task_output", "task_list", "task_kill"]);
 * ```
 */
export interface BashTools {
  /** The tools to offer the model: `bash`, and the task tools when background runs are enabled. */
  tools: AgentTool[];
  /** The `bash` tool. */
  bash: AgentTool;
  /** The `task_output` tool. */
  taskOutput: AgentTool;
  /** The `task_list` tool. */
  taskList: AgentTool;
  /** The `task_kill` tool. */
  taskKill: AgentTool;
  /**
   * The `task_input` tool (types into a task started with `terminal: true`),
   * when `enableTerminal` is set.
   */
  taskInput?: AgentTool;
  /**
   * The completion notices due to this owner, each once, as texts to inject
   * into the next model turn. A task whose final state the model already saw
   * (a read, a kill, a finished wait) has none.
   */
  takeNotices(): string[];
}

/**
 * Builds the model-facing tools over an executor and a task registry, for one
 * owner: `bash` (foreground, or background with `run_in_background`),
 * `task_output`, `task_list` and `task_kill`. Arguments are validated against
 * each tool's JSON Schema; mistakes come back as error results the model can
 * act on. For a sandboxing executor, `bash` also takes `sandbox_permissions`
 * and `justification`: the call runs under a mode wider than the session's
 * only if `approve` answers `"allow-once"`, for that call only.
 *
 * @throws {BashConfigError} when an option is missing or of the wrong kind,
 * or `workdir` is not absolute.
 *
 * @example Run a command and a background task, on Deno and Node 24 (`await using`)
 * ```ts
 * import { createBashTools } from "@shellseam/bash/tool";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor({ cwd: "/tmp" });
 * await using tasks = new TaskRegistry();
 * const { bash, taskOutput } = createBashTools({ executor, tasks, owner: taskOwner("s") });
 *
 * const run = await bash.execute({ command: "echo hello", description: "Say hello" });
 * assert.deepEqual(run, { text: "hello\n[exit code: 0]", isError: false });
 *
 * const started = await bash.execute({
 *   command: "echo later",
 *   description: "Echo in the background",
 *   run_in_background: true,
 * });
 * assert.match(started.text, /^started background task bash-1/);
 * const read = await taskOutput.execute({ task_id: "bash-1", wait: true });
 * assert.equal(read.text, "later\n[status: completed, exit code: 0]");
 * ```
 */
export function createBashTools(options: BashToolsOptions): BashTools {
  checkOptions(options);
  const runInBackground = options.enableRunInBackground ?? true;
  const mode = options.executor.sandboxMode;
  const escalationModes = options.approve && mode !== undefined ? widerSandboxModes(mode) : [];
  const terminals = runInBackground && options.enableTerminal === true
    ? new TerminalTasks()
    : undefined;
  const bash = createBashTool(options, runInBackground, escalationModes, terminals);
  const { taskOutput, taskList, taskKill } = createTaskTools({
    tasks: options.tasks,
    owner: options.owner,
    escalationModes,
  });
  const taskInput = terminals === undefined ? undefined : createTaskInput({
    tasks: options.tasks,
    owner: options.owner,
    terminals,
    escalationModes,
  });
  const taskTools = [
    taskOutput,
    taskList,
    taskKill,
    ...(taskInput === undefined ? [] : [taskInput]),
  ];
  return {
    tools: runInBackground ? [bash, ...taskTools] : [bash],
    bash,
    taskOutput,
    taskList,
    taskKill,
    ...(taskInput === undefined ? {} : { taskInput }),
    takeNotices: () =>
      options.tasks.takeNotices(options.owner).map((notice) => renderTaskNotice(notice.snapshot)),
  };
}

function checkOptions(options: BashToolsOptions): void {
  const { executor, tasks, owner, workdir, approve, sessionMode, enableRunInBackground } = options;
  if (options.rules !== undefined || options.unmatchedCommands !== undefined) {
    checkRuleSet(options.rules ?? [], options.unmatchedCommands ?? "ask");
  }
  const problem = (name: string, expected: string, what: string): BashConfigError =>
    new BashConfigError(`"${name}" must be ${expected}; pass ${what}`);
  if (
    typeof executor?.resolve !== "function" || typeof executor.run !== "function" ||
    typeof executor.start !== "function"
  ) {
    throw problem(
      "executor",
      "a BashExecutor",
      "a LocalBashExecutor, a SandboxBashExecutor or another BashExecutor",
    );
  }
  if (typeof tasks?.register !== "function") {
    throw problem(
      "tasks",
      "a TaskRegistry",
      "new TaskRegistry(), shared by the sessions of one process",
    );
  }
  if (typeof owner !== "string" || owner === "") {
    throw problem("owner", "a non-empty task owner", "taskOwner(sessionId)");
  }
  if (workdir !== undefined && (typeof workdir !== "string" || !isAbsolute(workdir))) {
    throw new BashConfigError(
      `"workdir" must be an absolute path; got ${
        JSON.stringify(workdir)
      }; resolve it first, for example with path.resolve()`,
    );
  }
  if (approve !== undefined && typeof approve !== "function") {
    throw problem("approve", "a function", "an async function that asks a person, or omit it");
  }
  if (enableRunInBackground !== undefined && typeof enableRunInBackground !== "boolean") {
    throw problem("enableRunInBackground", "true or false", "a boolean, or omit it for true");
  }
  if (options.enableTerminal !== undefined && typeof options.enableTerminal !== "boolean") {
    throw problem("enableTerminal", "true or false", "a boolean, or omit it for false");
  }
  if (options.screen !== undefined && typeof options.screen !== "function") {
    throw problem("screen", "a function", "(size) => a ScreenRenderer, or omit it for TextScreen");
  }
  if (sessionMode !== undefined && typeof sessionMode !== "function") {
    throw problem(
      "sessionMode",
      "a function",
      "a function returning the session's mode, or omit it",
    );
  }
}
