import type { BashProcess, BashTerminalSize } from "../seam/mod.ts";
import type { TaskOwner, TaskRegistry } from "../tasks/mod.ts";
import { messageOf } from "../seam/message.ts";
import { failure } from "./_result.ts";
import { readTask } from "./_task_read.ts";
import { taskFailure } from "./_task_tools.ts";
import { renderTaskOutput } from "./render/mod.ts";
import {
  DEFAULT_INPUT_WAIT_MS,
  TASK_INPUT_SCHEMA,
  toolStandardSchema,
  validateToolArguments,
} from "./schemas/mod.ts";
import type { AgentTool } from "./tool.ts";
import type { ScreenFeed } from "./_screen_feed.ts";
import type { SandboxMode } from "../seam/mod.ts";

/**
 * The size of the terminal the `bash` tool gives a command started with
 * `terminal: true`.
 */
export const TOOL_TERMINAL_SIZE: BashTerminalSize = { rows: 24, cols: 80 };

/** How many scrolled-off rows a tool's terminal screen keeps for the next read. */
export const TOOL_SCROLLBACK_ROWS = 500;

/** A running terminal task of the tools: its process, its screen's feed, and its size now. */
export interface TerminalTask {
  process: BashProcess;
  feed: ScreenFeed;
  size: BashTerminalSize;
}

/**
 * The running terminal tasks of one tool set, by task id: what `task_input`
 * types into. A task leaves once the registry settled it.
 */
export class TerminalTasks {
  readonly #tasks = new Map<string, TerminalTask>();

  /**
   * Adds the terminal task `id` until `settled` (its hooks' `done`, which the
   * registry awaited first) settles, so that no call sees it running without
   * a terminal.
   */
  add(id: string, task: TerminalTask, settled: Promise<unknown>): void {
    this.#tasks.set(id, task);
    settled.then(() => this.#tasks.delete(id));
  }

  /** The terminal task `id` while it runs, else undefined. */
  get(id: string): TerminalTask | undefined {
    return this.#tasks.get(id);
  }
}

interface TaskInputConfig {
  tasks: TaskRegistry<unknown>;
  owner: TaskOwner;
  terminals: TerminalTasks;
  escalationModes: readonly SandboxMode[];
}

/** Builds `task_input`: types into a terminal task and returns its screen. */
export function createTaskInput(config: TaskInputConfig): AgentTool {
  const { tasks, owner, terminals, escalationModes } = config;
  return {
    name: "task_input",
    description: [
      "Type into a background task started with terminal: true and read its screen as a person would see it: the lines that scrolled off since your last read, then [screen] and the screen's rows. The reply comes once the program answered and went quiet, or after wait_ms (default 250). It ends with [status: ...]. An empty input just reads the screen again; rows and cols resize the terminal first.",
      'End each line with "\\r" (Enter). How to leave programs: a REPL with exit() or "\\u0004" (Ctrl-D); vi with "\\u001b:wq\\r" (save) or "\\u001b:q!\\r" (discard); less, top and man with "q"; a running command with "\\u0003" (Ctrl-C). A program that is still working may show only part of its answer: read again with an empty input and a longer wait_ms instead of typing more.',
    ].join("\n"),
    inputSchema: TASK_INPUT_SCHEMA,
    standardSchema: toolStandardSchema("task_input", TASK_INPUT_SCHEMA),
    execute: async (args, context) => {
      const check = validateToolArguments("task_input", TASK_INPUT_SCHEMA, args);
      if (!check.ok) return failure(check.message);
      const id = (check.value.task_id as string).trim();
      const input = check.value.input as string;
      const waitMs = (check.value.wait_ms as number | undefined) ?? DEFAULT_INPUT_WAIT_MS;
      const rows = check.value.rows as number | undefined;
      const cols = check.value.cols as number | undefined;
      const signal = context?.signal;
      try {
        // The owner's fence first: another owner's task is neither typed into nor named.
        const snapshot = tasks.get(id, owner);
        const terminal = terminals.get(id);
        const running = snapshot.status === "running" && terminal !== undefined;
        if (snapshot.status === "running" && terminal === undefined) {
          return failure(
            `Task "${id}" has no terminal to type into; start the command with terminal: true, or read it with task_output`,
          );
        }
        const notes: string[] = [];
        if (running && (rows !== undefined || cols !== undefined)) {
          const size = { rows: rows ?? terminal.size.rows, cols: cols ?? terminal.size.cols };
          try {
            await terminal.feed.resize(size, terminal.size);
            terminal.size = size;
          } catch (error) {
            notes.push(`[not resized: ${messageOf(error)}]`);
          }
        } else if (rows !== undefined || cols !== undefined) {
          notes.push("[not resized: the task has ended]");
        }
        if (running) {
          // Listening starts before the typing, so no part of the answer is missed.
          const answer = terminal.feed.awaitAnswer(input, waitMs, signal);
          if (input !== "") {
            try {
              await terminal.process.write(input);
            } catch (error) {
              notes.push(`[input not sent: ${messageOf(error)}]`);
            }
          }
          await answer;
        } else if (input !== "") {
          notes.push("[input not sent: the task has ended]");
        }
        const text = renderTaskOutput(await readTask(tasks, id, owner), { escalationModes });
        return { text: [...notes, text].join("\n"), isError: false };
      } catch (error) {
        return failure(taskFailure(error));
      }
    },
  };
}
