import type { SandboxMode } from "../seam/mod.ts";
import {
  DisposedTaskError,
  ExpiredTaskError,
  TaskLimitError,
  type TaskOwner,
  TaskOwnershipError,
  type TaskRegistry,
  UnknownTaskError,
} from "../tasks/mod.ts";
import { messageOf } from "../seam/message.ts";
import { failure } from "./_result.ts";
import { readTask } from "./_task_read.ts";
import {
  renderTaskKill,
  renderTaskList,
  renderTaskOutput,
  type RenderTaskOutputOptions,
} from "./render/mod.ts";
import {
  DEFAULT_TASK_WAIT_MS,
  TASK_KILL_SCHEMA,
  TASK_LIST_SCHEMA,
  TASK_OUTPUT_CHECKS,
  TASK_OUTPUT_SCHEMA,
  toolStandardSchema,
  validateToolArguments,
} from "./schemas/mod.ts";
import type { AgentTool } from "./tool.ts";

/** How long `task_kill` waits for a stopped task to exit (past the executor's kill grace). */
const KILL_SETTLE_MS = 10_000;

interface TaskToolConfig {
  tasks: TaskRegistry<unknown>;
  owner: TaskOwner;
  escalationModes: readonly SandboxMode[];
}

/** Builds `task_output`, `task_list` and `task_kill` over a registry, for one owner. */
export function createTaskTools(
  config: TaskToolConfig,
): { taskOutput: AgentTool; taskList: AgentTool; taskKill: AgentTool } {
  const { tasks, owner, escalationModes } = config;
  const taskOutput: AgentTool = {
    name: "task_output",
    description:
      "Read what a background task printed since your last read: stdout, then a [stderr] section, or (no new output). The reply ends with [status: ...], which gives the exit code or signal once the task has finished. If output was dropped from memory before you read it, an [output lost: ...] line names the files that hold all of it. Set wait: true to block until the task finishes (or timeout_ms passes) instead of calling task_output again and again.",
    inputSchema: TASK_OUTPUT_SCHEMA,
    standardSchema: toolStandardSchema("task_output", TASK_OUTPUT_SCHEMA, TASK_OUTPUT_CHECKS),
    execute: async (args, context) => {
      const check = validateToolArguments(
        "task_output",
        TASK_OUTPUT_SCHEMA,
        args,
        TASK_OUTPUT_CHECKS,
      );
      if (!check.ok) return failure(check.message);
      const id = (check.value.task_id as string).trim();
      const signal = context?.signal;
      try {
        const options: RenderTaskOutputOptions = { escalationModes };
        if (check.value.wait === true) {
          const timeoutMs = (check.value.timeout_ms as number | undefined) ?? DEFAULT_TASK_WAIT_MS;
          await tasks.wait(id, owner, signal ? { timeoutMs, signal } : { timeoutMs });
          options.waitedMs = timeoutMs;
        }
        return {
          text: renderTaskOutput(await readTask(tasks, id, owner), options),
          isError: false,
        };
      } catch (error) {
        if (signal?.aborted) {
          return failure(`Stopped waiting for task ${id}: the tool call was cancelled`);
        }
        return failure(taskFailure(error));
      }
    },
  };
  const taskList: AgentTool = {
    name: "task_list",
    description:
      "List your background tasks, one line each: <id> [<kind>] <status> — <command>, or (no background tasks). Running tasks come first, then the most recently finished ones, then a line saying how many older finished tasks are not shown. A finished task whose final status you have seen is let go after a while, with its output.",
    inputSchema: TASK_LIST_SCHEMA,
    standardSchema: toolStandardSchema("task_list", TASK_LIST_SCHEMA),
    execute: (args) => {
      const check = validateToolArguments("task_list", TASK_LIST_SCHEMA, args);
      if (!check.ok) return Promise.resolve(failure(check.message));
      return Promise.resolve({ text: renderTaskList(tasks.list(owner)), isError: false });
    },
  };
  const taskKill: AgentTool = {
    name: "task_kill",
    description:
      "Stop a background task and every process it started. What it printed stays readable with task_output. The reply ends with the task's [status: ...].",
    inputSchema: TASK_KILL_SCHEMA,
    standardSchema: toolStandardSchema("task_kill", TASK_KILL_SCHEMA),
    execute: async (args) => {
      const check = validateToolArguments("task_kill", TASK_KILL_SCHEMA, args);
      if (!check.ok) return failure(check.message);
      const id = (check.value.task_id as string).trim();
      const reason = check.value.reason as string | undefined;
      try {
        const outcome = await tasks.kill(id, owner, reason?.trim() || undefined);
        const snapshot = outcome === "requested"
          ? await tasks.wait(id, owner, { timeoutMs: KILL_SETTLE_MS })
          : tasks.get(id, owner);
        return { text: renderTaskKill(outcome, snapshot), isError: false };
      } catch (error) {
        return failure(taskFailure(error));
      }
    },
  };
  return { taskOutput, taskList, taskKill };
}

/**
 * A registry's error in the tools' words (the registry's own are neutral):
 * the model lists its tasks with task_list and stops one with task_kill.
 */
export function taskFailure(error: unknown): string {
  const advice = "use task_list to see the ids of your tasks";
  if (error instanceof DisposedTaskError) {
    const what = error.by === "registry"
      ? "the task registry was shut down"
      : "this session's tasks were disposed";
    return error.cancelFailed
      ? `Task "${error.taskId}" was dropped because ${what}, but stopping it failed, so it may still be running`
      : `Task "${error.taskId}" was dropped because ${what} (stopped first if it was running), and its output with it; run the command again if you need that output`;
  }
  if (error instanceof ExpiredTaskError) {
    return `Task "${error.taskId}" is no longer kept: a finished task is let go a while after its final state was seen, and its output with it; run the command again if you need that output, and use task_list to see the tasks still kept`;
  }
  if (error instanceof UnknownTaskError) return `Unknown task id "${error.taskId}"; ${advice}`;
  if (error instanceof TaskOwnershipError) {
    return `Task "${error.taskId}" belongs to another session; ${advice}`;
  }
  if (error instanceof TaskLimitError) {
    return `This session already has ${error.limit} running background tasks, the most allowed, so no new one was started; stop one you no longer need with task_kill (task_list shows them), then try again`;
  }
  return messageOf(error);
}
