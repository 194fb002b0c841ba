import type { BashExecutor, BashTerminalSize, SandboxMode } from "../seam/mod.ts";
import type { ScreenRenderer } from "./screen.ts";
import type { TaskOwner, TaskRegistry } from "../tasks/mod.ts";
import type { ApproveEscalation } from "./escalation.ts";
import type { CommandDecision, CommandRule } from "./rules/mod.ts";

/**
 * What `createBashTools` builds the tools over.
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import type { BashToolsOptions } from "@shellseam/bash/tool";
 * import { LocalBashExecutor } from "@shellseam/bash/local";
 * import { TaskRegistry, taskOwner } from "@shellseam/bash/tasks";
 * import { createBashTools } from "@shellseam/bash/tool";
 * import assert from "node:assert/strict";
 *
 * await using executor = new LocalBashExecutor({ cwd: "/tmp" });
 * await using tasks = new TaskRegistry();
 * const options: BashToolsOptions = {
 *   executor,
 *   tasks,
 *   owner: taskOwner("session-1"),
 *   workdir: "/tmp",
 *   enableRunInBackground: false,
 * };
 * const { tools } = createBashTools(options);
 * // Without background commands there are no task tools, and no run_in_background field.
 * assert.deepEqual(tools.map((tool) => tool.name), ["bash"]);
 * assert.equal("run_in_background" in tools[0]!.inputSchema.properties, false);
 * ```
 */
export interface BashToolsOptions {
  /** Runs the commands. Its `sandboxMode` decides whether escalation fields are offered. */
  executor: BashExecutor;
  /** Holds background commands; may be shared with other task kinds and owners. */
  tasks: TaskRegistry<unknown>;
  /** Whose tasks these tools start and may see: the calling session. */
  owner: TaskOwner;
  /**
   * The session's working directory, an absolute path: the default workdir,
   * and the base of relative ones. Without it, the executor's cwd is both.
   */
  workdir?: string;
  /**
   * Asks a person whether one call may run under the wider mode the model
   * asked for; the request carries the call's `signal`. Not asked for a mode
   * the session already runs under or exceeds. Without it, every escalation
   * beyond the session's mode fails closed.
   */
  approve?: ApproveEscalation;
  /**
   * The session's sandbox mode override (for example the fold of its
   * `sandbox/mode` events), or `undefined` for the executor's default. An
   * approved escalation outranks it. Read at each call; when it throws or
   * answers an unknown mode, the call fails closed.
   */
  sessionMode?: () => SandboxMode | undefined;
  /** Offer `run_in_background` and the task tools. Defaults to true. */
  enableRunInBackground?: boolean;
  /**
   * Offer `terminal` on `bash` (a background command in a pseudo-terminal of
   * 24x80, or the call's `rows` and `cols`; see `BashExecRequest.terminal`)
   * and the `task_input` tool that types into it, resizes it and reads its
   * screen. Needs background runs and an executor that can open a terminal.
   * Defaults to false.
   */
  enableTerminal?: boolean;
  /**
   * Makes the screen renderer of each terminal task (rows and columns of its
   * terminal): a full emulator, such as `xtermScreen` of
   * `@shellseam/bash/xterm` (npm only, over `@xterm/headless`), for the
   * fidelity the built-in `TextScreen` (the default) lacks.
   */
  screen?: (size: BashTerminalSize) => ScreenRenderer;
  /**
   * Command rules, in order: each simple command of a `bash` call (in
   * pipelines, lists, substitutions, `bash -c` strings and behind runners
   * such as `sudo`, `env` and `xargs`) is checked, and the first rule that
   * matches it decides: `allow` runs it (never in a wider sandbox mode),
   * `ask` asks `approve` first (and fails closed without one), `deny` never
   * runs it. A line that cannot be fully read is `ask`. See
   * {@linkcode checkCommandRules}.
   */
  rules?: CommandRule[];
  /** The decision for a command no rule matches (default `"ask"` when `rules` is given). */
  unmatchedCommands?: CommandDecision;
}
